import { afterEach, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let workspace: TempWorkspace;
afterEach(() => workspace.remove());

describe("search with patterns that attack the engine or the reply", () => {
  it("runs a catastrophic-backtracking pattern over long lines in linear time", async () => {
    // With RegExp, ^(a+)+$ against 35 a's and a "b" does not return within a lifetime.
    workspace = tempWorkspace({ "a.txt": `${"a".repeat(35)}b\n${"a".repeat(50_000)}!\n${"a".repeat(40)}\n` });
    const result = await workspace.tool("search").invoke({ pattern: "^(a+)+$", regex: true });
    expect(result).toEqual({ text: `a.txt:3: ${"a".repeat(40)}`, isError: false });
  });

  it("names what the engine does not support: backreferences and lookaround", async () => {
    workspace = tempWorkspace({ "a.txt": "abab" });
    const search = workspace.tool("search");
    const cases: [string, RegExp][] = [
      ["(ab)\\1", /uses a backreference \(\\1 to \\9\), which this search does not support/],
      ["(?<w>ab)\\k<w>", /uses a named backreference/],
      ["a(?=b)", /uses lookahead/],
      ["(?<!x)a", /uses lookbehind/],
    ];
    for (const [pattern, reason] of cases) {
      const result = await search.invoke({ pattern, regex: true });
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(reason);
      expect(result.text).toContain("set regex to false");
    }
  });

  it("stops a long search when its signal is aborted", async () => {
    const files = Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`f/${i}.txt`, "needle\n".repeat(50)]));
    workspace = tempWorkspace(files, { limits: { maxSearchResults: 100_000 } });
    const controller = new AbortController();
    const pending = workspace.tool("search").invoke({ pattern: "needle" }, { signal: controller.signal });
    controller.abort(); // the search has started and is waiting on its first file
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^The search was cancelled after \d+ files/);
    const whole = await workspace.tool("search").invoke({ pattern: "needle" });
    expect(whole.text.split("\n")).toHaveLength(400 * 50);
  });

  it("answers a pattern of megabytes with a short error that says how much was left out", async () => {
    workspace = tempWorkspace({ "a.txt": "abc" });
    for (const regex of [false, true]) {
      // 3 MB gets past the tool's argument size limit and is refused by search, quoting its start.
      const result = await workspace.tool("search").invoke({ pattern: "x".repeat(3_000_000), regex });
      expect(result.isError).toBe(true);
      expect(result.text.length).toBeLessThan(500);
      expect(result.text).toContain("3000000 characters long");
      expect(result.text).toContain("(2999920 more characters left out)");
      // 8 MB is refused before the tool runs; either way the reply stays short.
      const larger = await workspace.tool("search").invoke({ pattern: "x".repeat(8_000_000), regex });
      expect(larger.isError).toBe(true);
      expect(larger.text.length).toBeLessThan(500);
    }
  });

  it("quotes a long pattern that matched nothing by its start only", async () => {
    workspace = tempWorkspace({ "a.txt": "abc" });
    const result = await workspace.tool("search").invoke({ pattern: "y".repeat(900) });
    expect(result.text).toBe(`No lines match "${"y".repeat(200)}"… (700 more characters left out) in ".".`);
  });
});
