import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

const SECRET = "outside-secret-4711";

let workspace: TempWorkspace;
let outsideBefore: Record<string, string>;

beforeAll(() => {
  workspace = tempWorkspace({ "inside.txt": "inside text", "docs/guide.md": "guide" });
  const { root, outside } = workspace;
  writeFileSync(path.join(outside, "secret.txt"), SECRET);
  mkdirSync(path.join(outside, "deep"));
  writeFileSync(path.join(outside, "deep", "secret.txt"), SECRET);
  symlinkSync(path.join(outside, "secret.txt"), path.join(root, "file-link")); // a file link pointing out
  symlinkSync(outside, path.join(root, "dir-link")); // a folder link pointing out
  symlinkSync(path.join(outside, "not-yet.txt"), path.join(root, "dangling")); // a write through it would land outside
  mkdirSync(path.join(root, "nested"));
  symlinkSync("../../outside", path.join(root, "nested", "relative-link")); // relative link climbing out
  symlinkSync(path.join(root, "loop-b"), path.join(root, "loop-a"));
  symlinkSync(path.join(root, "loop-a"), path.join(root, "loop-b"));
  outsideBefore = workspace.snapshot(outside);
});
afterAll(() => workspace.remove());

// Each escape attempt, and the words its refusal must contain.
const ESCAPES: { path: (ws: TempWorkspace) => string; reason: RegExp }[] = [
  { path: () => "../outside/secret.txt", reason: /climbs out of the workspace/ },
  { path: () => "..", reason: /climbs out/ },
  { path: () => "docs/../../outside/secret.txt", reason: /climbs out/ },
  { path: () => "docs/../../../../../../etc/passwd", reason: /climbs out/ },
  { path: () => "..\\outside\\secret.txt", reason: /climbs out/ },
  { path: () => "docs\\..\\..\\outside\\secret.txt", reason: /climbs out/ },
  { path: (ws) => path.join(ws.outside, "secret.txt"), reason: /absolute path outside the workspace/ },
  { path: () => "/etc/passwd", reason: /absolute path outside/ },
  { path: () => "C:\\Windows\\win.ini", reason: /absolute path outside/ },
  { path: () => "\\\\server\\share\\secret.txt", reason: /absolute path outside/ },
  { path: () => "%2e%2e/outside/secret.txt", reason: /percent-encoded sequence "%2e"/ },
  { path: () => "%2E%2E%2Foutside%2Fsecret.txt", reason: /percent-encoded/ },
  { path: () => "..%2foutside%2fsecret.txt", reason: /percent-encoded/ },
  { path: () => "%252e%252e/outside/secret.txt", reason: /percent-encoded sequence "%25"/ },
  { path: () => "%c0%ae%c0%ae/outside/secret.txt", reason: /percent-encoded/ },
  { path: () => "inside.txt\0../outside/secret.txt", reason: /NUL character/ },
  { path: () => "file-link", reason: /symbolic link that points outside/ },
  { path: () => "dir-link/secret.txt", reason: /symbolic link that points outside/ },
  { path: () => "dir-link/deep/secret.txt", reason: /symbolic link that points outside/ },
  { path: () => "dir-link/new-folder/new.txt", reason: /symbolic link that points outside/ },
  { path: () => "dir-link", reason: /symbolic link that points outside/ },
  { path: () => "nested/relative-link/secret.txt", reason: /symbolic link that points outside/ },
  { path: () => "dangling", reason: /symbolic link whose target does not exist/ },
  { path: () => "loop-a", reason: /loop of symbolic links/ },
];

const CALLS: Record<string, (target: string) => Record<string, unknown>> = {
  read_file: (target) => ({ path: target }),
  list_dir: (target) => ({ path: target, recursive: true }),
  search: (target) => ({ pattern: "secret", path: target }),
  write_file: (target) => ({ path: target, content: "written by the model" }),
  edit_file: (target) => ({ path: target, old_text: SECRET, new_text: "edited by the model" }),
};

describe("workspace confinement", () => {
  for (const escape of ESCAPES) {
    for (const [toolName, args] of Object.entries(CALLS)) {
      it(`${toolName} refuses ${JSON.stringify(escape.path({ root: "<root>", outside: "<outside>" } as TempWorkspace))}`, async () => {
        const result = await workspace.tool(toolName).invoke(args(escape.path(workspace)));
        expect(result.isError).toBe(true);
        expect(result.text).toMatch(escape.reason);
        expect(result.text).toContain("Use a path inside the workspace, relative to its root");
        expect(result.text).not.toContain(SECRET);
        expect(workspace.snapshot(workspace.outside)).toEqual(outsideBefore);
      });
    }
  }

  it("accepts what stays inside: nested paths, harmless dots, absolute paths under the root, links within it", async () => {
    symlinkSync(path.join(workspace.root, "docs"), path.join(workspace.root, "docs-link"));
    const read = workspace.tool("read_file");
    for (const inside of ["inside.txt", "./inside.txt", "docs/../inside.txt", "docs\\..\\inside.txt", path.join(workspace.root, "inside.txt")]) {
      expect(await read.invoke({ path: inside })).toEqual({ text: "1\tinside text", isError: false, value: "inside text" });
    }
    expect(await read.invoke({ path: "docs-link/guide.md" })).toEqual({ text: "1\tguide", isError: false, value: "guide" });
    const write = await workspace.tool("write_file").invoke({ path: "docs-link/new.md", content: "ok" });
    expect(write.text).toBe("Wrote 2 bytes to docs/new.md (new file).");
    expect(workspace.read("docs/new.md")).toBe("ok");
  });

  it("reports a workspace root that does not exist", async () => {
    const gone = tempWorkspace({});
    gone.remove();
    const result = await gone.tool("read_file").invoke({ path: "a.txt" });
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toContain("does not exist");
  });
});
