import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Plan, SubTask } from "../planning/notebook/plan.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { openSqliteDatabase } from "./sqlite-database.js";
import { SqlitePlanStore } from "./sqlite-plan-store.js";
import * as vitest from "vitest";
import { describePlanStore } from "../testing.js";

let dir: string;
let file: string;
const opened: SqlitePlanStore[] = [];
const open = (opts = {}) => {
  const storage = new SqlitePlanStore(file, opts);
  opened.push(storage);
  return storage;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "stepwise-plans-"));
  file = join(dir, "plans.db");
});
afterEach(() => {
  for (const storage of opened.splice(0)) void storage.close();
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

describePlanStore("sqlite", async () => {
  const place = mkdtempSync(join(tmpdir(), "stepwise-plans-"));
  const path = join(place, "plans.db");
  return {
    open: async (scope) => new SqlitePlanStore(path, scope ? { scope } : {}),
    cleanup: async () => rmSync(place, { recursive: true, force: true }),
  };
}, vitest);

describe("SqlitePlanStore", () => {
  it("survives a process restart: a child process creates and advances the plan, this one continues it", async () => {
    // The child loads the TypeScript sources through tsx, as a fresh process with nothing shared.
    const notebookModule = new URL("../planning/notebook/plan-notebook.ts", import.meta.url).href;
    const storageModule = new URL("./sqlite-plan-store.ts", import.meta.url).href;
    const child = `
      const { PlanNotebook } = await import(${JSON.stringify(notebookModule)});
      const { SqlitePlanStore } = await import(${JSON.stringify(storageModule)});
      const notebook = new PlanNotebook({ storage: new SqlitePlanStore(process.argv[1]) });
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
    await notebook.ready();
    expect(notebook.currentPlan?.name).toBe("Across processes");
    expect(notebook.currentPlan?.subtasks.map((s) => [s.state, s.outcome])).toEqual([
      ["done", "done in the child"],
      ["in_progress", null],
    ]);
    expect(notebook.hint()).toContain("Subtask 1, 'two', is in progress");
  });

  it("goes on with the plans a file of the earlier, synchronous SqlitePlanStorage holds", async () => {
    // The rows exactly as that version wrote them: its tables, a plan per row, the scope's current plan.
    const earlier = plan("Written before");
    const db = openSqliteDatabase(file);
    db.exec(`CREATE TABLE stepwise_plans (scope TEXT NOT NULL, id TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (scope, id));
      CREATE TABLE stepwise_current_plans (scope TEXT PRIMARY KEY, plan_id TEXT)`);
    db.prepare("INSERT INTO stepwise_plans VALUES ('default', ?, ?)").run(earlier.id, JSON.stringify({ ...earlier.toJSON(), state: "in_progress" }));
    db.prepare("INSERT INTO stepwise_current_plans VALUES ('default', ?)").run(earlier.id);
    db.close();
    const notebook = new PlanNotebook({ store: open() });
    notebook.loadState({ version: 1, planId: earlier.id });
    await notebook.ready();
    expect(notebook.currentPlan?.name).toBe("Written before");
    await notebook.finishSubtask(0, "finished after the change");
    expect((await open().get(earlier.id))?.subtasks[0]).toMatchObject({ state: "done", outcome: "finished after the change" });
  });

  it("refuses, at the next change and in ready(), a saved state naming a plan the file does not hold", async () => {
    const notebook = new PlanNotebook({ store: open() });
    notebook.loadState({ version: 1, planId: "gone" });
    expect(notebook.saveState()).toEqual({ version: 1, planId: "gone" });
    await expect(notebook.ready()).rejects.toThrow("refers to plan 'gone', which this store does not hold");
    await expect(notebook.createPlan(plan("Next"))).rejects.toThrow("refers to plan 'gone'");
    notebook.loadState({ version: 1, planId: null });
    await notebook.ready();
    expect((await notebook.createPlan(plan("Next"))).name).toBe("Next");
  });

  it("loads a copy-style saved state into the file without dropping plans already there", async () => {
    const memory = new PlanNotebook();
    await memory.createPlan(plan("From memory"));
    const storage = open();
    await storage.add(plan("Already here").toJSON());
    const notebook = new PlanNotebook({ storage });
    notebook.loadState(memory.saveState());
    expect(notebook.currentPlan?.name).toBe("From memory");
    await notebook.ready();
    expect((await notebook.historicalPlans()).map((p) => p.name)).toEqual(["Already here"]);
    expect(notebook.saveState()).toEqual({ version: 1, planId: notebook.currentPlan!.id });
  });
});
