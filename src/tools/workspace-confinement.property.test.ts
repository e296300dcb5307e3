import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

const SECRET = "outside-secret-0815";
const PROBE = "probe written by a generated path";

let workspace: TempWorkspace;
let outsideBefore: Record<string, string>;

beforeAll(() => {
  workspace = tempWorkspace({ "inside.txt": "inside", "docs/guide.md": "guide" });
  writeFileSync(path.join(workspace.outside, "secret.txt"), SECRET);
  symlinkSync(path.join(workspace.outside, "secret.txt"), path.join(workspace.root, "file-link"));
  symlinkSync(workspace.outside, path.join(workspace.root, "dir-link"));
  symlinkSync(path.join(workspace.outside, "planted.txt"), path.join(workspace.root, "dangling"));
  mkdirSync(path.join(workspace.root, "nested"));
  symlinkSync("../../outside", path.join(workspace.root, "nested", "up-link"));
  outsideBefore = workspace.snapshot(workspace.outside);
});
afterAll(() => workspace.remove());

function arbitraryPath(): fc.Arbitrary<string> {
  const segment = fc.constantFrom(
    "..", ".", "", "docs", "inside.txt", "new", "file-link", "dir-link", "dangling", "nested", "up-link",
    "outside", "secret.txt", "planted.txt", "%2e%2e", "%2f", "%5c", "..\\..", "\\", "\0", "~", "C:", "...", "..%00",
  );
  const segments = fc.array(segment, { maxLength: 7 });
  const start = fc.constantFrom("", "/", "./", "\\", "\\\\", "C:\\", () => `${workspace.root}/`, () => `${workspace.outside}/`);
  return fc.oneof(
    fc
      .tuple(start, segments, fc.constantFrom("/", "\\"))
      .map(([head, parts, separator]) => (typeof head === "function" ? head() : head) + parts.join(separator)),
    fc.string(),
    fc.string({ unit: "binary-ascii", maxLength: 30 }),
  );
}

describe("workspace confinement, for any path string", () => {
  it("never reads, lists or writes anything outside the workspace", async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryPath(), async (requested) => {
        const written = await workspace.tool("write_file").invoke({ path: requested, content: PROBE });
        if (!written.isError) {
          const relative = /^Wrote \d+ bytes to ([\s\S]*) \(/.exec(written.text)?.[1] ?? "";
          expect(relative === ".." || relative.startsWith("../")).toBe(false);
          expect(path.isAbsolute(relative)).toBe(false);
          const landed = path.join(workspace.root, relative);
          expect(existsSync(landed) && readFileSync(landed, "utf8")).toBe(PROBE);
        }
        for (const [name, args] of [
          ["read_file", { path: requested }],
          ["list_dir", { path: requested, recursive: true }],
          ["search", { pattern: "secret", path: requested }],
          ["edit_file", { path: requested, old_text: SECRET, new_text: "x" }],
        ] as const) {
          const result = await workspace.tool(name).invoke(args);
          expect(result.text).not.toContain(SECRET);
        }
        expect(workspace.snapshot(workspace.outside)).toEqual(outsideBefore);
      }),
      { numRuns: 300 },
    );
  });
});
