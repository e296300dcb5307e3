import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../core/agent.js";
import { scriptedModel } from "../models/scripted.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { SqlitePlanStore } from "./sqlite-plan-store.js";

/**
 * Guards the gap between a plan change and the agent's checkpoint: the storage commits with every
 * tool call, the checkpoint comes at turn end. A process killed in between must resume on the plan
 * the storage holds, not on the older one (or none) the checkpoint names, or it plans twice.
 */
let dir: string;
const opened: SqlitePlanStore[] = [];
const open = (scope = "run") => {
  const storage = new SqlitePlanStore(join(dir, "plans.db"), { scope });
  opened.push(storage);
  return storage;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "stepwise-committed-plan-"));
});
afterEach(() => {
  for (const storage of opened.splice(0)) void storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const subtasks = [
  { name: "one", description: "d", expectedOutcome: "o" },
  { name: "two", description: "d", expectedOutcome: "o" },
];

describe("a notebook restored from a checkpoint older than its storage", () => {
  it("follows the plan created after the checkpoint instead of planning again", async () => {
    const first = new PlanNotebook({ storage: open() });
    const checkpoint = first.saveState(); // taken before the plan existed
    await first.createPlan({ name: "Made after the checkpoint", description: "d", expectedOutcome: "o", subtasks });

    const resumed = new PlanNotebook({ storage: open() });
    resumed.loadState(checkpoint);
    await resumed.ready();
    expect(resumed.currentPlan?.name).toBe("Made after the checkpoint");
    expect(resumed.hint()).toContain("No subtask has started yet");
  });

  it("follows a finish and a replacement committed after the checkpoint", async () => {
    const first = new PlanNotebook({ storage: open() });
    await first.createPlan({ name: "Old", description: "d", expectedOutcome: "o", subtasks });
    const checkpoint = first.saveState();
    await first.createPlan({ name: "New", description: "d", expectedOutcome: "o", subtasks });
    await first.finishSubtask(0, "done once");

    const resumed = new PlanNotebook({ storage: open() });
    resumed.loadState(checkpoint);
    await resumed.ready();
    expect(resumed.currentPlan?.name).toBe("New");
    expect(resumed.currentPlan?.subtasks.map((s) => s.state)).toEqual(["done", "in_progress"]);

    await first.finishPlan("abandoned", "stopped");
    const afterFinish = new PlanNotebook({ storage: open() });
    afterFinish.loadState(checkpoint);
    await afterFinish.ready();
    expect(afterFinish.currentPlan).toBeNull();
    expect((await afterFinish.historicalPlans()).map((p) => [p.name, p.state])).toEqual([
      ["Old", "abandoned"],
      ["New", "abandoned"],
    ]);
  });

  it("goes on with its scope's current plan when opened without any checkpoint, and keeps scopes apart", async () => {
    await new PlanNotebook({ storage: open("a") }).createPlan({ name: "In scope a", description: "d", expectedOutcome: "o", subtasks });
    const [a, b] = [new PlanNotebook({ storage: open("a") }), new PlanNotebook({ storage: open("b") })];
    await Promise.all([a.ready(), b.ready()]);
    expect(a.currentPlan?.name).toBe("In scope a");
    expect(b.currentPlan).toBeNull();
  });

  it("commits the changed plans and the current plan together", async () => {
    const storage = open();
    const notebook = new PlanNotebook({ storage });
    await notebook.createPlan({ name: "P", description: "d", expectedOutcome: "o", subtasks });
    expect(await storage.currentPlanId()).toBe(notebook.currentPlan!.id);
    expect((await storage.get(notebook.currentPlan!.id))?.name).toBe("P");
    await notebook.finishPlan("abandoned", "no longer needed");
    expect(await storage.currentPlanId()).toBeNull();
    expect(await open("never-used").currentPlanId()).toBeUndefined();
  });

  it("lets an agent resumed from a pre-plan checkpoint go on without a second create_plan", async () => {
    const create = { name: "create_plan", arguments: { name: "P", description: "d", expected_outcome: "o",
      subtasks: subtasks.map((s) => ({ name: s.name, description: s.description, expected_outcome: s.expectedOutcome })) } };
    const agent = new Agent({ model: scriptedModel([{ toolCalls: [create] }, "stopped"]), plugins: [new PlanNotebook({ storage: open() })] });
    let checkpoint = agent.saveState();
    agent.on((event) => {
      if (event.type === "run-start") checkpoint = agent.saveState(); // the last checkpoint before the "kill"
    });
    await agent.run("plan it");

    const model = scriptedModel(["resumed"]);
    const resumed = new Agent({ model, plugins: [new PlanNotebook({ storage: open() })] });
    resumed.loadState(checkpoint);
    await resumed.continue();
    const hint = model.requests[0]!.messages.at(-1)!.content;
    expect(hint).toContain("# P");
    expect(await open().list()).toHaveLength(1);
  });
});
