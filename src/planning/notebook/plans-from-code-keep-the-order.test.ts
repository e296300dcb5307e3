// Regression: plans built in code (`createPlan(new Plan(...))`, `createPlan({ subtasks })`) and saved
// states given to `loadState` took subtask states that break the ordering rule ([todo, in_progress],
// two in progress, [done, todo, in_progress]); the hint then recommended finishing the subtask in
// progress, which the notebook refused. Such plans are put in order as they become current.
import { describe, expect, it } from "vitest";
import { Agent, Plan, PlanNotebook, scriptedModel, SubTask, type AgentEvent, type PlanState } from "../../index.js";

const step = (name: string, state: PlanState) => ({ name, description: "d", expectedOutcome: "o", state, ...(state === "done" ? { outcome: "did it" } : {}) });
const states = (notebook: PlanNotebook) => notebook.currentPlan?.subtasks.map((s) => s.state);

/** Makes the call the notebook's hint recommends, as a model following it would, and returns its result. */
async function followTheHint(notebook: PlanNotebook): Promise<{ call: string; isError: boolean; text: string }> {
  const hints: Extract<AgentEvent, { type: "hint-added" }>[] = [];
  const agent = new Agent({ model: scriptedModel(["ok"]), plugins: [notebook] });
  agent.on((event) => void (event.type === "hint-added" && hints.push(event)));
  await agent.run("go on");
  const next = hints[0]?.next;
  if (!next) throw new Error("the hint recommended no call");
  const written = Object.fromEntries(Object.keys(next.modelWrites).map((key) => [key, "the outcome"]));
  const tool = notebook.tools().find((t) => t.name === next.tool)!;
  const result = await tool.invoke({ ...next.args, ...written });
  return { call: `${next.tool}(${JSON.stringify(next.args)})`, ...result };
}

describe("a plan from code or a saved state that breaks the subtask order is put in order", () => {
  it("createPlan(new Plan(...)) with a todo subtask before the one in progress", async () => {
    const notebook = new PlanNotebook();
    await notebook.createPlan(new Plan({ name: "P", description: "d", expectedOutcome: "o", subtasks: [new SubTask(step("a", "todo")), new SubTask(step("b", "in_progress"))] }));
    expect(states(notebook)).toEqual(["todo", "todo"]);
    expect(await followTheHint(notebook)).toMatchObject({ call: 'update_subtask_state({"subtask_idx":0,"state":"in_progress"})', isError: false });
  });

  it("createPlan({ subtasks }) with two subtasks in progress", async () => {
    const notebook = new PlanNotebook();
    await notebook.createPlan({ name: "P", description: "d", expectedOutcome: "o", subtasks: [step("a", "in_progress"), step("b", "in_progress")] });
    expect(states(notebook)).toEqual(["in_progress", "todo"]);
    expect(await followTheHint(notebook)).toMatchObject({ call: 'finish_subtask({"subtask_idx":0})', isError: false });
  });

  it("loadState with [done, todo, in_progress], keeping the outcome of the done one", async () => {
    const notebook = new PlanNotebook();
    const plan = new Plan({ name: "P", description: "d", expectedOutcome: "o", state: "in_progress", subtasks: [step("a", "done"), step("b", "todo"), step("c", "in_progress")] });
    notebook.loadState({ version: 1, currentPlan: plan.toJSON(), history: [] });
    expect(states(notebook)).toEqual(["done", "todo", "todo"]);
    expect(notebook.currentPlan?.subtasks[0]?.outcome).toBe("did it");
    // What the notebook now holds is what it saves: a later load needs no second repair.
    expect((notebook.saveState() as { currentPlan: { subtasks: { state: string }[] } }).currentPlan.subtasks.map((s) => s.state)).toEqual(["done", "todo", "todo"]);
    expect(await followTheHint(notebook)).toMatchObject({ call: 'update_subtask_state({"subtask_idx":1,"state":"in_progress"})', isError: false });
  });

  it("leaves a plan in order as it is", async () => {
    const notebook = new PlanNotebook();
    await notebook.createPlan({ name: "P", description: "d", expectedOutcome: "o", subtasks: [step("a", "done"), step("b", "abandoned"), step("c", "in_progress"), step("d", "todo")] });
    expect(states(notebook)).toEqual(["done", "abandoned", "in_progress", "todo"]);
    expect(await followTheHint(notebook)).toMatchObject({ call: 'finish_subtask({"subtask_idx":2})', isError: false });
  });
});
