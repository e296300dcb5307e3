import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let workspace: TempWorkspace;
afterEach(() => workspace.remove());

describe("read_file", () => {
  it("returns the file's lines numbered, and the file's text as its value", async () => {
    workspace = tempWorkspace({ "src/app.ts": "const a = 1;\nconst b = 2;\n" });
    const result = await workspace.tool("read_file").invoke({ path: "src/app.ts" });
    expect(result).toEqual({ text: "1\tconst a = 1;\n2\tconst b = 2;", isError: false, value: "const a = 1;\nconst b = 2;\n" });
  });

  it("starts at start_line", async () => {
    workspace = tempWorkspace({ "notes.md": "one\ntwo\nthree" });
    const result = await workspace.tool("read_file").invoke({ path: "notes.md", start_line: 2 });
    expect(result).toEqual({ text: "2\ttwo\n3\tthree", isError: false, value: "two\nthree" });
  });

  it("cuts a long file with a notice naming the start_line to continue from", async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `line number ${i + 1}`).join("\n");
    workspace = tempWorkspace({ "long.txt": lines }, { limits: { maxReadChars: 100 } });
    const first = await workspace.tool("read_file").invoke({ path: "long.txt" });
    expect(first.isError).toBe(false);
    expect(first.text).toContain("1\tline number 1");
    const notice = /Truncated: showing lines 1-(\d+) of 50\. Call read_file with start_line (\d+)/.exec(first.text);
    expect(notice).not.toBeNull();
    expect(Number(notice?.[2])).toBe(Number(notice?.[1]) + 1);
    // Its value is the same lines without their numbers, the notice kept: a copy of it says it was cut.
    expect(first.value).toBe(first.text.replace(/^\d+\t/gm, ""));
    expect(first.value).toMatch(/\n\[Truncated: showing lines 1-\d+ of 50\. [^\n]*\]$/);
    const next = await workspace.tool("read_file").invoke({ path: "long.txt", start_line: Number(notice?.[2]) });
    expect(next.text.startsWith(`${notice?.[2]}\tline number ${notice?.[2]}`)).toBe(true);
  });

  it("says an empty file is empty", async () => {
    workspace = tempWorkspace({ "empty.txt": "" });
    expect(await workspace.tool("read_file").invoke({ path: "empty.txt" })).toEqual({ text: "empty.txt is empty.", isError: false, value: "" });
  });

  it("answers a missing file, a folder, a binary file and an oversized file with errors that say what to do", async () => {
    workspace = tempWorkspace({ "dir/a.txt": "a", "big.txt": "x".repeat(200) }, { limits: { maxFileBytes: 100 } });
    writeFileSync(path.join(workspace.root, "image.png"), Buffer.from([137, 80, 78, 71, 0, 1, 2]));
    const read = workspace.tool("read_file");
    const missing = await read.invoke({ path: "nope.txt" });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toMatch(/Nothing exists at "nope.txt".*list_dir/);
    expect((await read.invoke({ path: "dir" })).text).toMatch(/"dir" is a folder.*list_dir/);
    expect((await read.invoke({ path: "image.png" })).text).toMatch(/binary file/);
    expect((await read.invoke({ path: "big.txt" })).text).toMatch(/200 bytes, over the 100-byte limit.*search/);
  });

  it("refuses a start_line past the end, naming the valid range", async () => {
    workspace = tempWorkspace({ "a.txt": "1\n2\n3\n" });
    const result = await workspace.tool("read_file").invoke({ path: "a.txt", start_line: 9 });
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toContain("has 3 lines");
    expect(result.text).toContain("from 1 to 3");
  });
});
