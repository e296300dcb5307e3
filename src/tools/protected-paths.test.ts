import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";
import { workspaceTools } from "./workspace-tools.js";

const STORE_SECRET = "checkpoint-secret-1618";

let workspace: TempWorkspace;
afterEach(() => workspace.remove());

function withGitAndStore(options = {}): TempWorkspace {
  const ws = tempWorkspace({ "app.ts": "code", ".git/config": "[core]", ".git/HEAD": "ref: main", ".stepwise/stepwise.db": STORE_SECRET }, options);
  symlinkSync(".git", path.join(ws.root, "git-alias"));
  symlinkSync(path.join(ws.root, ".stepwise"), path.join(ws.root, "store-alias"));
  mkdirSync(path.join(ws.root, "x"));
  return ws;
}

describe("protected places in the workspace", () => {
  it("never lets .git be written, created in or edited, however the path is spelled", async () => {
    workspace = withGitAndStore();
    const before = workspace.snapshot(path.join(workspace.root, ".git"));
    for (const spelled of [".git/config", "./x/../.git/config", ".GIT/config", ".Git/hooks/pre-commit", "git-alias/config", "git-alias/hooks/post-checkout", ".git/new.txt", ".git"]) {
      const write = await workspace.tool("write_file").invoke({ path: spelled, content: "[core]\n\thooksPath = /tmp/evil" });
      expect(write.isError, spelled).toBe(true);
      expect(write.text).toMatch(/is in "\.git", which the workspace tools may read but never change/);
      const edit = await workspace.tool("edit_file").invoke({ path: spelled, old_text: "[core]", new_text: "[evil]" });
      expect(edit.isError, spelled).toBe(true);
    }
    expect(workspace.snapshot(path.join(workspace.root, ".git"))).toEqual(before);
    // Reading .git is allowed (it is skipped by listings and searches, as before).
    expect((await workspace.tool("read_file").invoke({ path: ".git/HEAD" })).text).toBe("1\tref: main");
  });

  it("keeps the run store out of listings, searches and reads, and never writes it", async () => {
    workspace = withGitAndStore();
    const listed = await workspace.tool("list_dir").invoke({ recursive: true });
    expect(listed.text).not.toMatch(/stepwise/);
    expect(listed.text).toContain("store-alias (symbolic link)"); // the link is shown, never followed
    expect((await workspace.tool("search").invoke({ pattern: STORE_SECRET })).text).toMatch(/^No lines match/);
    expect((await workspace.tool("search").invoke({ pattern: "checkpoint", path: "store-alias" })).isError).toBe(true);
    for (const spelled of [".stepwise/stepwise.db", ".stepwise", "store-alias/stepwise.db", "./x/../.stepwise/stepwise.db", ".STEPWISE/stepwise.db"]) {
      for (const [name, args] of [
        ["read_file", { path: spelled }],
        ["list_dir", { path: spelled }],
        ["write_file", { path: spelled, content: "overwritten" }],
        ["edit_file", { path: spelled, old_text: STORE_SECRET, new_text: "x" }],
      ] as const) {
        const result = await workspace.tool(name).invoke(args);
        expect(result.isError, `${name} ${spelled}`).toBe(true);
        expect(result.text).toMatch(/is in "\.stepwise", which holds the run store: the workspace tools never open, list or change it/);
        expect(result.text).not.toContain(STORE_SECRET);
      }
    }
    expect(workspace.read(".stepwise/stepwise.db")).toBe(STORE_SECRET);
  });

  it("takes a configured list: a store elsewhere, named by an absolute path", async () => {
    workspace = tempWorkspace({ "data/runs/store.db": STORE_SECRET, "data/notes.md": "notes", ".stepwise/x": "now visible" }, {
      protectedPaths: { hidden: [path.join("data", "runs")], readOnly: ["data/notes.md"] },
    });
    const configured = workspace;
    // Given as an absolute path, the store is found just the same.
    const absolute = tempWorkspace({ "store/db": STORE_SECRET });
    try {
      const tools = workspaceTools(absolute.root, { protectedPaths: { hidden: [path.join(absolute.root, "store")] } });
      const read = await tools.find((tool) => tool.name === "read_file")?.invoke({ path: "store/db" });
      expect(read?.text).toMatch(/is in "store", which holds the run store/);
      expect((await configured.tool("read_file").invoke({ path: "data/runs/store.db" })).isError).toBe(true);
      expect((await configured.tool("list_dir").invoke({ recursive: true })).text).toBe(".stepwise/\n.stepwise/x (11 bytes)\ndata/\ndata/notes.md (5 bytes)");
      expect((await configured.tool("write_file").invoke({ path: "data/notes.md", content: "x" })).text).toMatch(/is in "data\/notes.md"/);
      expect((await configured.tool("read_file").invoke({ path: "data/notes.md" })).text).toBe("1\tnotes");
    } finally {
      absolute.remove();
    }
  });

  it("refuses writes into a protected folder that does not exist yet", async () => {
    workspace = tempWorkspace({ "a.txt": "a" });
    const result = await workspace.tool("write_file").invoke({ path: ".git/hooks/pre-commit", content: "#!/bin/sh\nrm -rf ~" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/"\.git"/);
    expect(workspace.snapshot(workspace.root)).toEqual({ "a.txt": "a" });
  });
});
