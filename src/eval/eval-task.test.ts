import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { corpusTools } from "./corpus-tools.js";
import { BUILTIN_SUITE, loadSuite, loadTask } from "./eval-task.js";

const root = mkdtempSync(join(tmpdir(), "eval-task-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folder(id: string, files: Record<string, string>): string {
  const dir = join(root, id);
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const complete = { "task.json": '{"title": "T"}', "prompt.md": "Do it.", "check.mjs": "" };

describe("task folders", () => {
  it("loads a task with the defaults filled in", () => {
    const task = loadTask(folder("ok", complete));
    expect(task).toMatchObject({ id: "ok", title: "T", kind: "task", maxSteps: 60, tools: [], prompt: "Do it.", setupDir: undefined, corpusDir: undefined });
  });

  it("says what is missing or wrong, and where", () => {
    expect(() => loadTask(folder("no-check", { "task.json": "{}", "prompt.md": "x" }))).toThrow(/task no-check has no check\.mjs/);
    expect(() => loadTask(folder("bad-json", { ...complete, "task.json": "{title" }))).toThrow(/task bad-json: task\.json is not JSON/);
    expect(() => loadTask(folder("bad-steps", { ...complete, "task.json": '{"title": "T", "maxSteps": 0}' }))).toThrow(/task bad-steps: task\.json maxSteps: /);
    expect(() => loadTask(folder("bad-tool", { ...complete, "task.json": '{"title": "T", "tools": ["shell"]}' }))).toThrow(/task bad-tool: task\.json tools\.0: /);
    expect(() => loadTask(folder("extra", { ...complete, "task.json": '{"title": "T", "maxStep": 5}' }))).toThrow(/task extra: task\.json .*maxStep/);
    expect(() => loadTask(folder("no-corpus", { ...complete, "task.json": '{"title": "T", "tools": ["corpus"]}' }))).toThrow(/its corpus folder .* does not exist/);
    expect(() => loadTask(folder("Bad Name", complete))).toThrow(/needs a name of lowercase letters/);
  });

  it("a suite is every folder with a task.json, by id; an empty one is refused", () => {
    expect(loadSuite(BUILTIN_SUITE).map((t) => t.id)).not.toContain("_corpus");
    const empty = join(root, "empty-suite");
    mkdirSync(empty);
    expect(() => loadSuite(empty)).toThrow(/holds no tasks/);
  });
});

describe("corpus tools", () => {
  const [search, read] = corpusTools(join(BUILTIN_SUITE, "_corpus"));

  it("ranks documents by the query's words and reads one by id", async () => {
    const found = await search!.invoke({ query: "online index rebuilds" });
    expect(found.isError).toBe(false);
    expect(found.text.split("\n")[0]).toMatch(/^(release-2-1|osprey-design|projects): /);
    expect((await read!.invoke({ id: "projects" })).text).toContain("Osprey (indexing): led by Mei Lin");
  });

  it("answers hostile input with a bounded error, never a path outside the corpus", async () => {
    const traversal = await read!.invoke({ id: "../task.json" });
    expect(traversal).toMatchObject({ isError: true });
    expect(traversal.text).toContain("There is no document");
    const long = await read!.invoke({ id: "x".repeat(150) });
    expect(long.isError).toBe(true);
    expect(long.text.length).toBeLessThan(400);
    expect(await search!.invoke({ query: "!!!" })).toMatchObject({ isError: true });
    expect((await search!.invoke({ query: "zebra" })).text).toMatch(/^No document mentions "zebra"/);
  });
});
