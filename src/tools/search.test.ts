import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let workspace: TempWorkspace;
afterEach(() => workspace.remove());

describe("search", () => {
  it("finds matching lines as path:line: text across the workspace", async () => {
    workspace = tempWorkspace({ "src/a.ts": "import x\n  // TODO: tidy\n", "src/b.ts": "TODO first\nnothing\n", "c.md": "todo lower" });
    const result = await workspace.tool("search").invoke({ pattern: "TODO" });
    expect(result).toEqual({ text: "src/a.ts:2: // TODO: tidy\nsrc/b.ts:1: TODO first", isError: false });
  });

  it("ignores case, takes regular expressions and narrows to a path", async () => {
    workspace = tempWorkspace({ "src/a.ts": "const Alpha = 1;\nconst beta = 22;", "docs/a.md": "alpha" });
    const search = workspace.tool("search");
    expect((await search.invoke({ pattern: "alpha", ignore_case: true, path: "src" })).text).toBe("src/a.ts:1: const Alpha = 1;");
    expect((await search.invoke({ pattern: "\\d{2}", regex: true })).text).toBe("src/a.ts:2: const beta = 22;");
    expect((await search.invoke({ pattern: "alpha", path: "docs/a.md" })).text).toBe("docs/a.md:1: alpha");
  });

  it("skips node_modules, .git and binary files", async () => {
    workspace = tempWorkspace({ "node_modules/p/i.js": "needle", ".git/config": "needle", "ok.txt": "needle" });
    writeFileSync(path.join(workspace.root, "blob.bin"), Buffer.concat([Buffer.from("needle"), Buffer.from([0])]));
    expect((await workspace.tool("search").invoke({ pattern: "needle" })).text).toBe("ok.txt:1: needle");
  });

  it("stops at the result limit with a notice", async () => {
    workspace = tempWorkspace({ "many.txt": "hit\n".repeat(30) }, { limits: { maxSearchResults: 5 } });
    const result = await workspace.tool("search").invoke({ pattern: "hit" });
    expect(result.text.split("\n").filter((line) => line.startsWith("many.txt:"))).toHaveLength(5);
    expect(result.text).toContain("[Stopped after 5 matches.");
  });

  it("says when nothing matches", async () => {
    workspace = tempWorkspace({ "a.txt": "abc" });
    expect(await workspace.tool("search").invoke({ pattern: "zzz" })).toEqual({ text: 'No lines match "zzz" in ".".', isError: false });
  });

  it("answers a broken regular expression, an empty pattern and a missing path with errors", async () => {
    workspace = tempWorkspace({ "a.txt": "abc" });
    const search = workspace.tool("search");
    const broken = await search.invoke({ pattern: "(unclosed", regex: true });
    expect(broken).toMatchObject({ isError: true });
    expect(broken.text).toMatch(/not a valid regular expression.*set regex to false/);
    expect(await search.invoke({ pattern: "" })).toMatchObject({ isError: true });
    expect((await search.invoke({ pattern: "a", path: "nowhere" })).text).toMatch(/Nothing exists at "nowhere"/);
  });
});
