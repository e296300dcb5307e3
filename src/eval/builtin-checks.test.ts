import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILTIN_SUITE, loadSuite } from "./eval-task.js";
import { readSolution } from "./scripted-brains.js";
import { runCheck } from "./task-check.js";

const tasks = loadSuite(BUILTIN_SUITE);
const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A workspace as a trial starts it (setup/), optionally with the reference solution's files laid over it. */
function workspace(task: (typeof tasks)[number], solved: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), `eval-check-${task.id}-`));
  made.push(dir);
  if (task.setupDir) cpSync(task.setupDir, dir, { recursive: true });
  const files = task.solutionDir && join(task.solutionDir, "files");
  if (solved && files && existsSync(files)) cpSync(files, dir, { recursive: true, force: true });
  return dir;
}

describe("the built-in suite", () => {
  it("has at least 12 tasks: code, data and research, each with a reference solution", () => {
    expect(tasks.length).toBeGreaterThanOrEqual(12);
    const kinds = new Set(tasks.map((t) => t.kind));
    expect([...kinds].sort()).toEqual(["code", "data", "research"]);
    for (const task of tasks) expect(task.solutionDir, task.id).toBeDefined();
  });

  describe.each(tasks.map((task) => [task.id, task] as const))("%s", (_id, task) => {
    it("fails the untouched workspace with a wrong answer, saying why in one line", async () => {
      const result = await runCheck(task, workspace(task, false), "I have finished the task.");
      expect(result.passed).toBe(false);
      expect(result.reason).not.toContain("\n");
      expect(result.reason.length).toBeGreaterThan(5);
    });

    it("passes the reference solution", async () => {
      const result = await runCheck(task, workspace(task, true), readSolution(task).answer);
      expect(result, result.reason).toMatchObject({ passed: true });
    });
  });
});
