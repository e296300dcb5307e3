import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let workspace: TempWorkspace;
afterEach(() => workspace.remove());

describe("write_file", () => {
  it("creates a file and its missing folders", async () => {
    workspace = tempWorkspace({});
    const result = await workspace.tool("write_file").invoke({ path: "reports/2024/summary.md", content: "# Summary\n" });
    expect(result).toEqual({ text: "Wrote 10 bytes to reports/2024/summary.md (new file).", isError: false });
    expect(workspace.read("reports/2024/summary.md")).toBe("# Summary\n");
  });

  it("replaces an existing file's whole content and says so", async () => {
    workspace = tempWorkspace({ "a.txt": "old content" });
    const result = await workspace.tool("write_file").invoke({ path: "a.txt", content: "new" });
    expect(result.text).toContain("replaced its previous content");
    expect(workspace.read("a.txt")).toBe("new");
  });

  it("refuses to write over a folder, and reports a missing argument", async () => {
    workspace = tempWorkspace({});
    mkdirSync(path.join(workspace.root, "dir"));
    const folder = await workspace.tool("write_file").invoke({ path: "dir", content: "x" });
    expect(folder).toMatchObject({ isError: true });
    expect(folder.text).toMatch(/"dir" is a folder/);
    const missing = await workspace.tool("write_file").invoke({ path: "a.txt" });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.text).toContain("- content:");
  });
});
