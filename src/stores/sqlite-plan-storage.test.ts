import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Plan, SubTask } from "../planning/notebook/plan.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { SqlitePlanStorage } from "./sqlite-plan-storage.js";

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

describe("SqlitePlanStorage", () => {
  it("adds, replaces in place, gets, lists in first-added order and deletes", () => {
    const storage = open();
    const [a, b] = [plan("A"), plan("B")];
    storage.add(a.toJSON());
    storage.add(b.toJSON());
    storage.add({ ...a.toJSON(), state: "in_progress" });
    expect(storage.get(a.id)).toEqual({ ...a.toJSON(), state: "in_progress" });
    expect(storage.get("missing")).toBeNull();
    expect(storage.list().map((p) => p.name)).toEqual(["A", "B"]);
    expect(storage.delete(a.id)).toBe(true);
    expect(storage.delete(a.id)).toBe(false);
    expect(storage.list().map((p) => p.name)).toEqual(["B"]);
  });

  it("keeps scopes apart in one file", () => {
    open({ scope: "alice" }).add(plan("Alice's").toJSON());
    expect(open({ scope: "bob" }).list()).toEqual([]);
    expect(open({ scope: "alice" }).list().map((p) => p.name)).toEqual(["Alice's"]);
  });

  it("lets a second notebook on the same file continue the plan, with every change committed as it happened", async () => {
    const first = new PlanNotebook({ storage: open() });
    await first.createPlan(plan("Persisted"));
    const saved = first.saveState();
    expect(saved).toEqual({ version: 1, planId: first.currentPlan!.id });
    // Changed after saving: the reference still finds the latest committed plan.
    await first.finishSubtask(0, "first outcome");

    const second = new PlanNotebook({ storage: open() });
    second.loadState(JSON.parse(JSON.stringify(saved)));
    expect(second.currentPlan?.toJSON()).toEqual(first.currentPlan?.toJSON());
    expect(second.currentPlan?.subtasks.map((s) => s.state)).toEqual(["done", "in_progress"]);
    await second.finishPlan("abandoned", "moved on");
    expect(new PlanNotebook({ storage: open() }).historicalPlans().map((p) => [p.name, p.state])).toEqual([["Persisted", "abandoned"]]);
  });

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
