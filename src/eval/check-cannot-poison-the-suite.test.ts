import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { scriptedModel } from "../models/scripted.js";
import { loadSuite } from "./eval-task.js";
import { runEval } from "./run-eval.js";
import { readTrialRecords } from "./trial-record.js";

const dirs: string[] = [];
const fresh = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `stepwise-${name}-`));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A code task whose check imports the agent's src/index.js, as a test runner would. */
function codeTask(suite: string, id: string): void {
  const dir = join(suite, id);
  mkdirSync(join(dir, "setup", "src"), { recursive: true });
  writeFileSync(join(dir, "task.json"), JSON.stringify({ title: id, kind: "code", maxSteps: 5 }));
  writeFileSync(join(dir, "prompt.md"), "Make src/index.js export answer = 42.\n");
  writeFileSync(join(dir, "setup", "src", "index.js"), "export const answer = 0;\n");
  writeFileSync(
    join(dir, "check.mjs"),
    `import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expected } from "../_checks/expected.mjs";
const { answer } = await import(pathToFileURL(join(process.argv[2], "src", "index.js")).href);
assert.equal(answer, expected, "src/index.js must export answer = 42");
console.log("answer is 42");
`,
  );
}

/**
 * What a model can write for the check to import: code that, when imported, rewrites every check it
 * can find to pass — the suite's copy beside the check, the suite itself, other trials' workspaces —
 * and the eval's own records, and tries to start a process. Every failure is swallowed, so the
 * check goes on as if nothing happened.
 */
function poison(suite: string, out: string): string {
  return `import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const attempts = [];
const overwrite = (file, text) => { try { writeFileSync(file, text); attempts.push("wrote " + file); } catch (e) { attempts.push(e.code); } };
for (const root of [join(process.cwd(), ".."), ${JSON.stringify(suite)}]) {
  for (const name of readdirSync(root)) if (existsSync(join(root, name, "check.mjs"))) overwrite(join(root, name, "check.mjs"), "process.exit(0);\\n");
  overwrite(join(root, "_checks", "expected.mjs"), "export const expected = 0;\\n");
}
for (const name of readdirSync(tmpdir())) if (name.startsWith("stepwise-eval-")) overwrite(join(tmpdir(), name, "src", "index.js"), "export const answer = 42;\\n");
overwrite(${JSON.stringify(join(out, "results.jsonl"))}, "");
try { (await import("node:child_process")).execSync("true"); attempts.push("started a process"); } catch (e) { attempts.push(e.code); }
console.log(attempts.join(", "));
export const answer = 41;
`;
}

it("a model's code, imported by the check, cannot rewrite the suite, other trials or the eval's records: its trial fails and later ones are judged as they are", async () => {
  const suite = fresh("suite");
  const out = fresh("out");
  mkdirSync(join(suite, "_checks"));
  writeFileSync(join(suite, "_checks", "expected.mjs"), "export const expected = 42;\n");
  codeTask(suite, "a-poisoned");
  codeTask(suite, "b-later");
  // Every file of the suite with its content.
  const snapshot = () =>
    readdirSync(suite, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => [join(entry.parentPath, entry.name), readFileSync(join(entry.parentPath, entry.name), "utf8")])
      .sort();
  const before = snapshot();

  const result = await runEval({
    model: "scripted:poison",
    out,
    suite: loadSuite(suite),
    strategies: ["react"],
    trials: 2,
    // Trial 1 of the first task writes the poison; every later trial does nothing and says it is done.
    models: (task, _strategy, trial) => {
      const model =
        task.id === "a-poisoned" && trial === 1
          ? scriptedModel([{ toolCalls: [{ name: "write_file", arguments: { path: "src/index.js", content: poison(suite, out) } }] }, "Done."])
          : scriptedModel(["Done."]);
      return () => model;
    },
  });

  expect(result.records.map((r) => [r.task, r.trial, r.outcome])).toEqual([
    ["a-poisoned", 1, "wrong-answer"],
    ["a-poisoned", 2, "wrong-answer"],
    ["b-later", 1, "wrong-answer"],
    ["b-later", 2, "wrong-answer"],
  ]);
  // The poison's own report, the check's last line: it reached only the check's copy of the suite, nothing else.
  expect(result.records[0]?.reason).toMatch(/^wrote \S+\/stepwise-check-\w+\/suite\/a-poisoned\/check\.mjs, wrote \S+\/stepwise-check-\w+\/suite\/_checks\/expected\.mjs, ERR_ACCESS_DENIED/);
  expect(result.records[0]?.reason).not.toContain(`wrote ${suite}`);
  expect(snapshot()).toEqual(before);
  expect(readTrialRecords(result.files.results)).toHaveLength(4);
});
