import { afterAll, describe, expect, it } from "vitest";
import { tempWorkspace } from "./test-support/temp-workspace.js";

// Found by the reliability fuzzer: a path longer than the file system allows came back as
// `Tool "read_file" failed: ENAMETOOLONG …`, a crash message echoing the whole name.
const ws = tempWorkspace({ "a.txt": "a" });
afterAll(() => ws.remove());

describe("a path longer than the file system allows", () => {
  it.each([
    ["read_file", { path: "a".repeat(5_000) }],
    ["write_file", { path: "a".repeat(5_000), content: "x" }],
    ["list_dir", { path: "a".repeat(5_000) }],
    ["search", { pattern: "a", path: "a".repeat(5_000) }],
  ])("%s: an error saying the path is too long, without echoing it", async (name, args) => {
    const result = await ws.tool(name).invoke(args);
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/longer than the file system allows/);
    expect(result.text.length).toBeLessThan(300);
  });
});

describe("a path of thousands of folders", () => {
  it("is refused before anything is created", async () => {
    const result = await ws.tool("write_file").invoke({ path: `${"a/".repeat(3_000)}x.txt`, content: "x" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/The path \(6005 characters\) is longer than the file system allows/);
    expect(ws.snapshot(ws.root)).toEqual({ "a.txt": "a" });
  });
});
