import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let workspace: TempWorkspace;
afterEach(() => workspace.remove());

describe("list_dir", () => {
  it("lists the root's own entries, folders with a slash and files with their size", async () => {
    workspace = tempWorkspace({ "README.md": "hello", "src/app.ts": "x", "src/lib/util.ts": "y" });
    const result = await workspace.tool("list_dir").invoke({});
    expect(result).toEqual({ text: "README.md (5 bytes)\nsrc/", isError: false });
  });

  it("lists everything below a folder when recursive, with paths relative to the root", async () => {
    workspace = tempWorkspace({ "src/app.ts": "x", "src/lib/util.ts": "y" });
    const result = await workspace.tool("list_dir").invoke({ path: "src", recursive: true });
    expect(result.text).toBe("src/app.ts (1 bytes)\nsrc/lib/\nsrc/lib/util.ts (1 bytes)");
  });

  it("skips node_modules and .git and says so", async () => {
    workspace = tempWorkspace({ "index.js": "", "node_modules/pkg/index.js": "", ".git/HEAD": "ref" });
    const result = await workspace.tool("list_dir").invoke({ recursive: true });
    expect(result.text).not.toMatch(/pkg|HEAD/);
    expect(result.text).toContain("index.js (0 bytes)");
    expect(result.text).toContain("[Not listed: .git/, node_modules/]");
  });

  it("marks symbolic links and does not follow them", async () => {
    workspace = tempWorkspace({ "a.txt": "a" });
    mkdirSync(path.join(workspace.outside, "secret-folder"));
    symlinkSync(workspace.outside, path.join(workspace.root, "out"));
    const result = await workspace.tool("list_dir").invoke({ recursive: true });
    expect(result.text).toBe("a.txt (1 bytes)\nout (symbolic link)");
  });

  it("stops at the entry limit with a notice", async () => {
    const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${String(i).padStart(2, "0")}.txt`, ""]));
    workspace = tempWorkspace(files, { limits: { maxListEntries: 5 } });
    const result = await workspace.tool("list_dir").invoke({});
    expect(result.text.split("\n").slice(0, 5)).toEqual(["f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt"].map((f) => `${f} (0 bytes)`));
    expect(result.text).toContain("[Truncated after 5 entries.");
  });

  it("says an empty folder is empty, and answers a file or a missing folder with an error", async () => {
    workspace = tempWorkspace({ "a.txt": "a" });
    mkdirSync(path.join(workspace.root, "empty"));
    expect((await workspace.tool("list_dir").invoke({ path: "empty" })).text).toBe('"empty" is empty.');
    const file = await workspace.tool("list_dir").invoke({ path: "a.txt" });
    expect(file).toMatchObject({ isError: true });
    expect(file.text).toMatch(/is a file, not a folder.*read_file/);
    expect((await workspace.tool("list_dir").invoke({ path: "missing" })).text).toMatch(/Nothing exists at "missing"/);
  });
});
