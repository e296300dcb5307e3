import { linkSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

const SECRET = "outside-secret-2718";

let workspace: TempWorkspace;
let outsideFile: string;
beforeEach(() => {
  workspace = tempWorkspace({ "plain.txt": "plain" });
  outsideFile = path.join(workspace.outside, "secret.txt");
  writeFileSync(outsideFile, SECRET);
  linkSync(outsideFile, path.join(workspace.root, "linked.txt")); // planted: one inode, two names
});
afterEach(() => workspace.remove());

describe("a file in the workspace hard-linked to one outside", () => {
  it("is not read, searched or edited, with an error saying why", async () => {
    const read = await workspace.tool("read_file").invoke({ path: "linked.txt" });
    expect(read.isError).toBe(true);
    expect(read.text).toMatch(/"linked.txt" has 2 hard links.*do not read or edit/);
    const edit = await workspace.tool("edit_file").invoke({ path: "linked.txt", old_text: SECRET, new_text: "edited" });
    expect(edit.isError).toBe(true);
    expect(edit.text).toContain("hard links");
    const search = await workspace.tool("search").invoke({ pattern: SECRET });
    expect(search.text).toBe(`No lines match "${SECRET}" in ".".`);
    expect(readFileSync(outsideFile, "utf8")).toBe(SECRET);
  });

  it("is replaced by a new file on write_file: the outside file keeps its content", async () => {
    const write = await workspace.tool("write_file").invoke({ path: "linked.txt", content: "new content" });
    expect(write).toEqual({ text: "Wrote 11 bytes to linked.txt (replaced its previous content).", isError: false });
    expect(readFileSync(outsideFile, "utf8")).toBe(SECRET);
    expect(statSync(outsideFile).nlink).toBe(1);
    expect(workspace.read("linked.txt")).toBe("new content");
    expect((await workspace.tool("read_file").invoke({ path: "linked.txt" })).text).toBe("1\tnew content");
  });
});
