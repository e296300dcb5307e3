import { describe, expect, it } from "vitest";
import { readableLabel, wrapLabel } from "./node-label.js";

describe("readableLabel", () => {
  it("shows a tool step's argument values without the JSON around them", () => {
    expect(readableLabel('read_file({"path":"notes.md"})')).toBe("read_file: notes.md");
    expect(readableLabel('search({"pattern":"TODO","max":5})')).toBe("search: TODO, 5");
    expect(readableLabel("list_dir({})")).toBe("list_dir");
  });

  it("reads a label cut short in the middle of its JSON", () => {
    expect(readableLabel('write_file({"path":"report.md","content":"# Workspace repor…')).toBe("write_file: report.md, # Workspace repor");
  });

  it("keeps a plain sentence as it is, and shortens long values", () => {
    expect(readableLabel("Survey the workspace (quickly)")).toBe("Survey the workspace (quickly)");
    expect(readableLabel(`write_file({"path":"a","content":"${"x".repeat(80)}"})`)).toBe(`write_file: a, ${"x".repeat(27)}…`);
  });
});

describe("wrapLabel", () => {
  it("breaks between words and ends what does not fit with an ellipsis", () => {
    expect(wrapLabel("read the notes and write a long report about them", 16, 2)).toEqual(["read the notes", "and write a…"]);
    expect(wrapLabel("short", 16, 2)).toEqual(["short"]);
  });
});
