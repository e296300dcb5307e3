import { chmodSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let workspace: TempWorkspace;
afterEach(() => workspace.remove());

describe("edit_file", () => {
  it("replaces the one exact occurrence of old_text and names its line", async () => {
    workspace = tempWorkspace({ "app.ts": "const a = 1;\nconst b = 2;\n" });
    const result = await workspace.tool("edit_file").invoke({ path: "app.ts", old_text: "b = 2", new_text: "b = 3" });
    expect(result).toEqual({ text: "Replaced 1 occurrence in app.ts (at line 2).", isError: false });
    expect(workspace.read("app.ts")).toBe("const a = 1;\nconst b = 3;\n");
  });

  it("replaces every occurrence with replace_all", async () => {
    workspace = tempWorkspace({ "a.txt": "x\ny\nx\n" });
    const result = await workspace.tool("edit_file").invoke({ path: "a.txt", old_text: "x", new_text: "z", replace_all: true });
    expect(result.text).toBe("Replaced 2 occurrences in a.txt (at lines 1, 3).");
    expect(workspace.read("a.txt")).toBe("z\ny\nz\n");
  });

  it("refuses old_text that is missing, and leaves the file alone", async () => {
    workspace = tempWorkspace({ "a.txt": "const a = 1;" });
    const result = await workspace.tool("edit_file").invoke({ path: "a.txt", old_text: "const  a", new_text: "let a" });
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toMatch(/old_text was not found in "a.txt".*exactly.*read_file/);
    expect(workspace.read("a.txt")).toBe("const a = 1;");
  });

  it("refuses ambiguous old_text, naming where it occurs and how to disambiguate", async () => {
    workspace = tempWorkspace({ "a.txt": "x = 1\ny = 2\nx = 1\n" });
    const result = await workspace.tool("edit_file").invoke({ path: "a.txt", old_text: "x = 1", new_text: "x = 9" });
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toContain("occurs 2 times");
    expect(result.text).toContain("lines 1, 3");
    expect(result.text).toContain("replace_all");
    expect(workspace.read("a.txt")).toBe("x = 1\ny = 2\nx = 1\n");
  });

  it("refuses an edit that changes nothing, an empty old_text and a missing file", async () => {
    workspace = tempWorkspace({ "a.txt": "abc" });
    const edit = workspace.tool("edit_file");
    expect((await edit.invoke({ path: "a.txt", old_text: "b", new_text: "b" })).text).toMatch(/nothing would change/);
    expect(await edit.invoke({ path: "a.txt", old_text: "", new_text: "x" })).toMatchObject({ isError: true });
    expect((await edit.invoke({ path: "b.txt", old_text: "a", new_text: "x" })).text).toMatch(/Nothing exists at "b.txt"/);
  });

  it("treats replacement text literally, dollar signs included", async () => {
    workspace = tempWorkspace({ "a.txt": "price: X" });
    await workspace.tool("edit_file").invoke({ path: "a.txt", old_text: "X", new_text: "$& and $1" });
    expect(workspace.read("a.txt")).toBe("price: $& and $1");
  });

  it("keeps the file's permissions (the new content is a new file renamed over the old one)", async () => {
    workspace = tempWorkspace({ "run.sh": "echo one\n" });
    chmodSync(path.join(workspace.root, "run.sh"), 0o750);
    await workspace.tool("edit_file").invoke({ path: "run.sh", old_text: "one", new_text: "two" });
    expect(workspace.read("run.sh")).toBe("echo two\n");
    expect(statSync(path.join(workspace.root, "run.sh")).mode & 0o777).toBe(0o750);
    expect(workspace.snapshot(workspace.root)).toEqual({ "run.sh": "echo two\n" }); // no temporary file left behind
  });
});
