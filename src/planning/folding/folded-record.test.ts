import { describe, expect, it } from "vitest";
import { foldedDigest, foldedUnitRecord, stubbedResult } from "./folded-record.js";

describe("folded records", () => {
  const unit = { kind: "subtask", id: "2", title: "Write the parser" };
  const calls = [
    { id: "a", name: "read_file", arguments: "{}" },
    { id: "b", name: "read_file", arguments: "{}" },
    { id: "c", name: "finish_subtask", arguments: "{}" },
  ];

  it("names the unit, its outcome, its calls, what it touched and how to recall it", () => {
    const record = foldedUnitRecord({
      unit,
      outcome: "Parser handles all three formats.",
      calls,
      references: { files: ["src/parse.ts"], urls: ["https://spec.example/fmt"], ids: ["task_id=4"] },
    });
    expect(record).toContain('unit="subtask:2"');
    expect(record).toContain("Write the parser");
    expect(record).toContain("Parser handles all three formats.");
    expect(record).toContain("read_file ×2, finish_subtask");
    expect(record).toContain("src/parse.ts");
    expect(record).toContain("https://spec.example/fmt");
    expect(record).toContain("task_id=4");
    expect(record).toContain('call recall with unit "subtask:2"');
  });

  it("says how many references it left out past the limit", () => {
    const files = Array.from({ length: 20 }, (_, i) => `src/f${i}.ts`);
    const record = foldedUnitRecord({ unit, outcome: "", calls, references: { files, urls: [], ids: [] } });
    expect(record).toContain("src/f14.ts … and 5 more");
    expect(record).not.toContain("src/f15.ts");
    expect(record).toContain("(none given)");
  });

  it("a stub names the tool, the size, what the result mentioned and the id to recall", () => {
    const stub = stubbedResult({
      call: { id: "call_3_1", name: "search", arguments: "{}" },
      tokens: 812,
      references: { files: ["src/a.ts"], urls: ["https://x.example/y"], ids: [] },
    });
    expect(stub).toContain("search");
    expect(stub).toContain("812");
    expect(stub).toContain("src/a.ts, https://x.example/y");
    expect(stub).toContain('recall with unit "call_3_1"');
  });
});

describe("the digest of older folds", () => {
  it("gives each unit one line with its latest outcome and says how to recall it", () => {
    const unit = (id: string) => ({ kind: "subtask", id, title: `Step ${id}` });
    const digest = foldedDigest([
      { unit: unit("1"), outcome: "first try" },
      { unit: unit("2"), outcome: "" },
      { unit: unit("1"), outcome: "done for good" },
    ]);
    expect(digest).toMatch(/^<folded-work units="2">/);
    expect(digest).toContain('- subtask:1 "Step 1": done for good');
    expect(digest).not.toContain("first try");
    expect(digest).toContain('- subtask:2 "Step 2": (no outcome given)');
    expect(digest).toMatch(/call recall with its reference/);
  });
});
