import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { scriptedModel } from "../../models/scripted.js";
import { Plan, SubTask } from "./plan.js";
import { PlanNotebook, type PlanChange } from "./plan-notebook.js";

// The reference's manual example, built in code.
function researchPlan(): Plan {
  return new Plan({
    name: "Agent research",
    description: "A broad survey of LLM-based agents.",
    expectedOutcome: "Answers: what agents are, the state of the art, and where they are heading.",
    subtasks: [
      new SubTask({ name: "Find surveys", description: "Search arXiv for surveys since 2021.", expectedOutcome: "A markdown list of papers." }),
      new SubTask({ name: "Summarise them", description: "Read and summarise the papers.", expectedOutcome: "Key points in markdown." }),
      new SubTask({ name: "Write the report", description: "Answer the three questions.", expectedOutcome: "A markdown report." }),
    ],
  });
}

const hintOf = (messages: { content: string }[] | undefined) => messages?.at(-1)?.content ?? "";

describe("PlanNotebook", () => {
  it("takes a plan built in code and hands it to an agent, whose first request carries it", async () => {
    const notebook = new PlanNotebook();
    const plan = researchPlan();
    const created = await notebook.createPlan(plan);
    expect(created).not.toBe(plan);
    expect(notebook.currentPlan?.toMarkdown()).toBe(plan.toMarkdown());

    const model = scriptedModel([{ toolCalls: [{ name: "update_subtask_state", arguments: { subtask_idx: 0, state: "in_progress" } }] }, "Searching."]);
    const agent = new Agent({ model, plugins: [notebook] });
    await agent.run("Go on with the research.");
    expect(hintOf(model.requests[0]?.messages)).toContain("- [ ] Find surveys\n- [ ] Summarise them\n- [ ] Write the report");
    expect(hintOf(model.requests[1]?.messages)).toContain("- [ ] [WIP]Find surveys");
  });

  it("lets code outside the loop drive the plan with the same rules as the tools", async () => {
    const notebook = new PlanNotebook();
    await notebook.createPlan({
      name: "Trip",
      description: "Plan a trip.",
      expectedOutcome: "Booked.",
      subtasks: [
        { name: "Flights", description: "Book flights.", expectedOutcome: "Tickets." },
        { name: "Hotel", description: "Book a hotel.", expectedOutcome: "A booking." },
      ],
    });
    await expect(notebook.finishSubtask(1, "booked")).rejects.toThrow("Subtask 0 'Flights' comes before subtask 1");
    await notebook.finishSubtask(0, "Tickets AF123");
    await notebook.reviseCurrentPlan(2, "add", { name: "Car", description: "Rent a car.", expectedOutcome: "A car." });
    expect(await notebook.viewSubtasks([0])).toContain("\t- Outcome: Tickets AF123");
    await notebook.updateSubtaskState(2, "abandoned");
    await notebook.finishSubtask(1, "Hotel Lutetia");
    const finished = await notebook.finishPlan("done", "All booked.");
    expect(finished.subtasks.map((s) => s.state)).toEqual(["done", "done", "abandoned"]);
    expect(notebook.currentPlan).toBeNull();
  });

  it("fires hooks by name on every change, sync or async, with the changed plan, until removed", async () => {
    const notebook = new PlanNotebook();
    const seen: [PlanChange, string, string][] = [];
    notebook.registerPlanChangeHook("sync", (plan, change) => void seen.push([change, plan.name, plan.state]));
    notebook.registerPlanChangeHook("async", async (plan, change) => {
      await new Promise((resolve) => setImmediate(resolve));
      seen.push([change, `${plan.name} (async)`, plan.state]);
    });
    notebook.registerPlanChangeHook("broken", () => {
      throw new Error("hook bug");
    });
    const first = await notebook.createPlan(researchPlan());
    expect(notebook.removePlanChangeHook("async")).toBe(true);
    expect(notebook.removePlanChangeHook("async")).toBe(false);
    await notebook.createPlan({ ...researchPlan().toJSON(), id: "x", name: "Second" });
    await notebook.recoverHistoricalPlan(first.id);
    await notebook.finishPlan("abandoned", "stop");
    expect(seen).toEqual([
      ["created", "Agent research", "todo"],
      ["created", "Agent research (async)", "todo"],
      ["archived", "Agent research", "abandoned"],
      ["created", "Second", "todo"],
      ["archived", "Second", "abandoned"],
      ["recovered", "Agent research", "todo"],
      ["finished", "Agent research", "abandoned"],
    ]);
  });

  it("lets a hook read the archive and the subtasks while its change is being made", async () => {
    const notebook = new PlanNotebook();
    const archived: string[][] = [];
    notebook.registerPlanChangeHook("reader", async (_plan, change) => {
      if (change !== "created") return;
      archived.push((await notebook.historicalPlans()).map((plan) => plan.name));
      expect(await notebook.viewSubtasks([0])).toContain("Subtask 0:");
    });
    await notebook.createPlan(researchPlan());
    await notebook.createPlan({ ...researchPlan().toJSON(), id: "x", name: "Second" });
    expect(archived).toEqual([[], ["Agent research"]]);
  });

  it("does not fire hooks or events for a refused change", async () => {
    const notebook = new PlanNotebook();
    await notebook.createPlan(researchPlan());
    let fired = 0;
    notebook.registerPlanChangeHook("count", () => void fired++);
    await expect(notebook.updateSubtaskState(2, "in_progress")).rejects.toThrow();
    await expect(notebook.finishPlan("done", "x")).rejects.toThrow();
    expect(fired).toBe(0);
  });

  it("emits plan-updated to every agent it is attached to, with a snapshot of the plan", async () => {
    const notebook = new PlanNotebook();
    const model = scriptedModel([
      { toolCalls: [{ name: "create_plan", arguments: { name: "P", description: "d", expected_outcome: "o", subtasks: [{ name: "s", description: "d", expected_outcome: "o" }] } }] },
      { toolCalls: [{ name: "finish_subtask", arguments: { subtask_idx: 0, subtask_outcome: "ok" } }] },
      "Done.",
    ]);
    const agent = new Agent({ model, plugins: [notebook] });
    const events: AgentEvent[] = [];
    agent.on((event) => events.push(event));
    await agent.run("do it");
    const updates = events.flatMap((e) => (e.type === "plan-updated" ? [e] : []));
    expect(updates.map((e) => [e.change, e.plan.subtasks[0]?.state, e.agent])).toEqual([
      ["created", "todo", "agent"],
      ["subtask-finished", "done", "agent"],
    ]);
  });

  it("wraps a custom planToHint in <system-hint>, and sends nothing when it returns null", async () => {
    const notebook = new PlanNotebook({ planToHint: (plan) => (plan ? `Working on ${plan.name}.` : null) });
    expect(notebook.hint()).toBeNull();
    await notebook.createPlan(researchPlan());
    expect(notebook.hint()).toBe("<system-hint>Working on Agent research.</system-hint>");
    const model = scriptedModel(["ok"]);
    await new Agent({ model, plugins: [notebook] }).run("hi");
    expect(hintOf(model.requests[0]?.messages)).toBe("<system-hint>Working on Agent research.</system-hint>");
  });

  it("round-trips its plan and history through saveState/loadState, alone and inside the agent's state", async () => {
    const notebook = new PlanNotebook();
    await notebook.createPlan(researchPlan());
    await notebook.finishSubtask(0, "Five surveys");
    await notebook.createPlan({ ...researchPlan().toJSON(), name: "Second" });
    const saved = notebook.saveState();

    const copy = new PlanNotebook();
    copy.loadState(JSON.parse(JSON.stringify(saved)));
    expect(copy.saveState()).toEqual(saved);
    expect(copy.currentPlan?.toJSON()).toEqual(notebook.currentPlan?.toJSON());
    expect((await copy.historicalPlans()).map((p) => p.toJSON())).toEqual((await notebook.historicalPlans()).map((p) => p.toJSON()));

    const agent = new Agent({ model: scriptedModel([]), plugins: [notebook] });
    const restored = new PlanNotebook();
    new Agent({ model: scriptedModel([]), plugins: [restored] }).loadState(agent.saveState());
    expect(restored.saveState()).toEqual(saved);
    expect((await restored.historicalPlans())[0]?.subtasks[0]?.outcome).toBe("Five surveys");
  });

  it("loads replace what a memory-backed notebook held", async () => {
    const empty = new PlanNotebook().saveState();
    const notebook = new PlanNotebook();
    await notebook.createPlan(researchPlan());
    await notebook.finishPlan("abandoned", "x");
    notebook.loadState(empty);
    expect((await notebook.historicalPlans())).toEqual([]);
    expect(notebook.currentPlan).toBeNull();
  });

  it("keeps loading version-1 states (fixture), and refuses newer or foreign ones clearly", () => {
    const fixture = {
      version: 1,
      currentPlan: {
        id: "p1",
        name: "Fixture",
        description: "d",
        expectedOutcome: "o",
        state: "in_progress",
        outcome: null,
        createdAt: "2026-01-01T00:00:00.000Z",
        finishedAt: null,
        subtasks: [{ name: "s", description: "d", expectedOutcome: "o", state: "in_progress", outcome: null, createdAt: "2026-01-01T00:00:00.000Z", finishedAt: null }],
      },
      history: [],
    };
    const notebook = new PlanNotebook();
    notebook.loadState(fixture);
    expect(notebook.currentPlan?.toMarkdown()).toContain("- [ ] [WIP]s");
    expect(() => notebook.loadState({ version: 2, planId: null })).toThrow("newer than this Stepwise reads");
    expect(() => notebook.loadState({ todos: [] })).toThrow("PlanNotebook.saveState()");
    expect(() => notebook.loadState({ version: 1, planId: "missing" })).toThrow("which this store does not hold");
  });

  it("refuses a maxSubtasks below 1", () => {
    expect(() => new PlanNotebook({ maxSubtasks: 0 })).toThrow("maxSubtasks must be at least 1");
  });
});
