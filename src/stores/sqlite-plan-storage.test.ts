import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Plan, SubTask } from "../planning/notebook/plan.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { SqlitePlanStorage } from "./sqlite-plan-storage.js";
import { describePlanStorage } from "./test-support/plan-storage-suite.js";

let dir: string;
let file: string;
const opened: SqlitePlanStorage[] = [];
const open = (opts = {}) => {
  const storage = new SqlitePlanStorage(file, opts);
  opened.push(storage);
  return storage;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "stepwise-plans-"));
  file = join(dir, "plans.db");
});
afterEach(() => {
  for (const storage of opened.splice(0)) storage.close();
  rmSync(dir, { recursive: true, force: true });
});

function plan(name: string): Plan {
  return new Plan({
    name,
    description: "d",
    expectedOutcome: "o",
    subtasks: [new SubTask({ name: "one", description: "d", expectedOutcome: "o" }), new SubTask({ name: "two", description: "d", expectedOutcome: "o" })],
  });
}

describePlanStorage("sqlite", async () => {
  const place = mkdtempSync(join(tmpdir(), "stepwise-plans-"));
  const path = join(place, "plans.db");
  return {
    open: async (scope) => new SqlitePlanStorage(path, scope ? { scope } : {}),
    cleanup: async () => rmSync(place, { recursive: true, force: true }),
  };
});

describe("SqlitePlanStorage", () => {
  it("survives a process restart: a child process creates and advances the plan, this one continues it", async () => {
    // The child loads the TypeScript sources through tsx, as a fresh process with nothing shared.
    const notebookModule = new URL("../planning/notebook/plan-notebook.ts", import.meta.url).href;
    const storageModule = new URL("./sqlite-plan-storage.ts", import.meta.url).href;
    const child = `
      const { PlanNotebook } = await import(${JSON.stringify(notebookModule)});
      const { SqlitePlanStorage } = await import(${JSON.stringify(storageModule)});
      const notebook = new PlanNotebook({ storage: new SqlitePlanStorage(process.argv[1]) });
      const [create, finish] = notebook.tools().filter((t) => t.name === "create_plan" || t.name === "finish_subtask");
      await create.invoke({ name: "Across processes", description: "d", expected_outcome: "o",
        subtasks: [{ name: "one", description: "d", expected_outcome: "o" }, { name: "two", description: "d", expected_outcome: "o" }] });
      await finish.invoke({ subtask_idx: 0, subtask_outcome: "done in the child" });
      process.stdout.write(JSON.stringify(notebook.saveState()));
    `;
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "--eval", child, file], { encoding: "utf8" });
    const saved = JSON.parse(output) as object;

    const notebook = new PlanNotebook({ storage: open() });
    notebook.loadState(saved);
    expect(notebook.currentPlan?.name).toBe("Across processes");
    expect(notebook.currentPlan?.subtasks.map((s) => [s.state, s.outcome])).toEqual([
      ["done", "done in the child"],
      ["in_progress", null],
    ]);
    expect(notebook.hint()).toContain("Subtask 1, 'two', is in progress");
  });

  it("loads a copy-style saved state into the file without dropping plans already there", async () => {
    const memory = new PlanNotebook();
    await memory.createPlan(plan("From memory"));
    const storage = open();
    storage.add(plan("Already here").toJSON());
    const notebook = new PlanNotebook({ storage });
    notebook.loadState(memory.saveState());
    expect(notebook.currentPlan?.name).toBe("From memory");
    expect(notebook.historicalPlans().map((p) => p.name)).toEqual(["Already here"]);
    expect(notebook.saveState()).toEqual({ version: 1, planId: notebook.currentPlan!.id });
  });
});
