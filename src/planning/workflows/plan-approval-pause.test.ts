import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { ApprovalDecision } from "../../core/approval.js";
import type { AgentEvent } from "../../core/events.js";
import type { ModelRequest } from "../../core/model.js";
import { reactiveModel, scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { PlanAndExecute } from "./plan-and-execute/plan-and-execute.js";
import { PlanTool } from "./plan-tool/plan-tool.js";
import type { WorkflowOutcome, WorkflowState } from "./workflow.js";

// Each resume is made by a new workflow with new models and a state that went through JSON, as a
// run resumed in another process (the viewer, a worker) days later would be.
const saved = (outcome: WorkflowOutcome): WorkflowState => JSON.parse(JSON.stringify(outcome.state)) as WorkflowState;

/** An executor that reports the step it was given, so the results show what ran. */
const echoExecutor = () =>
  scriptedModel(
    Array.from({ length: 6 }, () => (req: ModelRequest) => {
      const input = String(req.messages.at(-1)?.content);
      return `did: ${/(?:Current step|Your subtask \(\d+ of \d+\)): (.*)/.exec(input)?.[1]}`;
    }),
  );

const TASK = "Twice the price?";
const proposal = '{"steps": ["Fetch the price", "Double it"]}';

function planAndExecute(plannerTurns: ScriptedTurn[], opts: { replan?: boolean; events?: AgentEvent[] } = {}) {
  const planner = scriptedModel(plannerTurns);
  const executor = echoExecutor();
  const workflow = new PlanAndExecute({
    model: planner,
    executorModel: executor,
    replan: opts.replan ?? false,
    approvePlans: true,
    ...(opts.events ? { onEvent: (e: AgentEvent) => opts.events?.push(e) } : {}),
  });
  return { planner, executor, workflow };
}

const decide = (outcome: WorkflowOutcome, decision: ApprovalDecision) => ({ [outcome.pending?.[0]?.id ?? "none"]: decision });

describe("PlanAndExecute pauses for plan approval", () => {
  it("stops with the plan as a pending call before any step runs, and runs it once approved", async () => {
    const events: AgentEvent[] = [];
    const first = planAndExecute([proposal], { events });
    const paused = await first.workflow.run(TASK);
    expect(paused).toMatchObject({ stopReason: "awaiting-user", text: "", answer: "" });
    expect(paused.pending).toEqual([
      { id: "plan-1", name: "plan", kind: "plan", arguments: JSON.stringify({ task: TASK, steps: ["Fetch the price", "Double it"] }) },
    ]);
    expect(paused.state.pending).toEqual(paused.pending);
    expect(first.executor.requests).toHaveLength(0);
    // The planner's model call is reported too; of the workflow's own events only the request is there yet.
    expect(events.map((e) => e.type).filter((type) => type.startsWith("workflow-") || type.startsWith("plan-"))).toEqual([
      "workflow-planning-started",
      "plan-approval-requested",
    ]);

    const second = planAndExecute([]);
    const done = await second.workflow.run(TASK, { state: saved(paused), decisions: { "plan-1": { action: "approve" } } });
    expect(done).toMatchObject({ stopReason: "final", text: "did: Double it", answer: "did: Double it" });
    expect(done.state.pending).toBeUndefined();
    expect(done.trace.steps.map((s) => s.result)).toEqual(["did: Fetch the price", "did: Double it"]);
    expect(done.trace.plans).toHaveLength(1);
    expect(done.trace.plans[0]?.review).toEqual({ proposed: ["Fetch the price", "Double it"], decision: { action: "approve" }, earlier: [] });
    expect(second.planner.requests).toHaveLength(0);
  });

  it("re-plans after a rejection with the reason, from the saved planning conversation, and pauses again", async () => {
    const paused = await planAndExecute([proposal]).workflow.run(TASK);
    const second = planAndExecute(['{"steps": ["Read the price list", "Double it"]}']);
    const again = await second.workflow.run(TASK, { state: saved(paused), decisions: decide(paused, { action: "reject", reason: "Use the price list." }) });
    expect(again.stopReason).toBe("awaiting-user");
    expect(again.pending?.[0]).toMatchObject({ id: "plan-2", kind: "plan", arguments: JSON.stringify({ task: TASK, steps: ["Read the price list", "Double it"] }) });
    const replanning = second.planner.requests[0]?.messages ?? [];
    expect(replanning.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(replanning[3]?.content).toContain("The user rejected this plan:\n1. Fetch the price\n2. Double it\nTheir feedback: Use the price list.");
    expect(second.executor.requests).toHaveLength(0);

    const third = planAndExecute([]);
    const done = await third.workflow.run(TASK, { state: saved(again), decisions: decide(again, { action: "approve" }) });
    expect(done.trace.steps.map((s) => s.result)).toEqual(["did: Read the price list", "did: Double it"]);
    expect(done.trace.plans[0]?.review?.earlier).toEqual([{ steps: ["Fetch the price", "Double it"], feedback: "Use the price list." }]);
    expect(String(third.executor.requests[0]?.messages.at(-1)?.content)).toContain("The user rejected the planner's first proposal with this feedback: Use the price list.");
  });

  it("runs an edited plan, given as { steps } or a list, and asks again about an edit that is not a plan", async () => {
    const paused = await planAndExecute([proposal]).workflow.run(TASK);
    const refused = planAndExecute([]);
    for (const [edit, problem] of [
      [{ step: "x" }, 'Your edited plan "{\\"step\\":\\"x\\"}" was not used: An edited plan is { "steps": ["…"] } or a list of step texts.'],
      [[" "], "needs at least one step; to stop the plan, reject it"],
    ] as const) {
      const again = await refused.workflow.run(TASK, { state: saved(paused), decisions: decide(paused, { action: "edit", arguments: edit }) });
      expect(again.stopReason).toBe("awaiting-user");
      const shown = JSON.parse(again.pending?.[0]?.arguments ?? "{}") as { steps: string[]; problem: string };
      expect(again.pending?.[0]?.id).toBe("plan-1");
      expect(shown.steps).toEqual(["Fetch the price", "Double it"]);
      expect(shown.problem).toContain(problem);
    }
    await expect(refused.workflow.run(TASK, { state: saved(paused), decisions: decide(paused, { action: "answer", text: "yes" }) })).rejects.toThrow(
      "plan-1 (plan) needs approve, edit or reject, not an answer.",
    );
    await expect(refused.workflow.run(TASK, { state: saved(paused) })).rejects.toThrow(/needs a decision for every pending call; missing: plan-1 \(plan\)/);
    expect(refused.executor.requests).toHaveLength(0);

    for (const edited of [{ steps: ["Fetch the price in EUR", "Add VAT", "Double it"] }, ["Fetch the price in EUR", "Add VAT", "Double it"]]) {
      const second = planAndExecute([]);
      const done = await second.workflow.run(TASK, { state: saved(paused), decisions: decide(paused, { action: "edit", arguments: edited }) });
      expect(done.trace.steps.map((s) => s.result)).toEqual(["did: Fetch the price in EUR", "did: Add VAT", "did: Double it"]);
      expect(done.trace.plans[0]?.review).toMatchObject({ proposed: ["Fetch the price", "Double it"], decision: { action: "edit" } });
      expect(String(second.executor.requests[0]?.messages.at(-1)?.content)).toContain('- Step 2 "Add VAT" was added.');
    }
  });

  it("asks about each replan that changes the steps, and a rejected replan is revised with the reason", async () => {
    const paused = await planAndExecute([proposal], { replan: true }).workflow.run(TASK);
    // After step 1 the replanner wants a different step 2: the run pauses on it.
    const second = planAndExecute(['{"steps": ["Guess it"]}'], { replan: true });
    const revised = await second.workflow.run(TASK, { state: saved(paused), decisions: decide(paused, { action: "approve" }) });
    expect(revised.stopReason).toBe("awaiting-user");
    expect(revised.pending?.[0]).toMatchObject({ id: "plan-2", arguments: JSON.stringify({ task: TASK, steps: ["Guess it"] }) });
    expect(revised.trace.steps.map((s) => s.result)).toEqual(["did: Fetch the price"]);

    const third = planAndExecute(['{"steps": ["Double it"]}'], { replan: true });
    const again = await third.workflow.run(TASK, { state: saved(revised), decisions: decide(revised, { action: "reject", reason: "No guessing." }) });
    const asked = third.planner.requests[0]?.messages ?? [];
    expect(asked[0]?.content).toMatch(/^You review a plan while it runs/);
    expect(asked[1]?.content).toContain("The user rejected this plan:\n1. Guess it\nTheir feedback: No guessing.");
    expect(again.pending?.[0]).toMatchObject({ id: "plan-3", arguments: JSON.stringify({ task: TASK, steps: ["Double it"] }) });

    const fourth = planAndExecute(['{"answer": "Twice is 20."}'], { replan: true });
    const done = await fourth.workflow.run(TASK, { state: saved(again), decisions: decide(again, { action: "approve" }) });
    expect(done).toMatchObject({ stopReason: "final", text: "Twice is 20." });
    expect(done.trace.steps.map((s) => s.result)).toEqual(["did: Fetch the price", "did: Double it"]);
    expect(done.trace.plans.map((p) => p.review?.decision.action)).toEqual(["approve", "approve"]);
  });

  it("stops with no-answer when the user rejects a plan twice", async () => {
    const paused = await planAndExecute([proposal]).workflow.run(TASK);
    const again = await planAndExecute([proposal]).workflow.run(TASK, { state: saved(paused), decisions: decide(paused, { action: "reject", reason: "Too vague." }) });
    const last = planAndExecute([]);
    const done = await last.workflow.run(TASK, { state: saved(again), decisions: decide(again, { action: "reject", reason: "Still vague." }) });
    expect(done).toMatchObject({
      stopReason: "no-answer",
      text: 'Nothing was done: the user rejected the plan twice. Their feedback: "Too vague.", then "Still vague.".',
    });
    expect(last.executor.requests).toHaveLength(0);
    // An ended run stays ended: running its state again changes nothing and calls no model.
    const repeat = await planAndExecute([]).workflow.run(TASK, { state: saved(done) });
    expect(repeat).toMatchObject({ stopReason: "no-answer", text: done.text });
  });

  it("refuses a state of another workflow or another task, and decisions for a run that is not paused", async () => {
    const paused = await planAndExecute([proposal]).workflow.run(TASK);
    const { workflow } = planAndExecute([]);
    await expect(workflow.run("Another task", { state: saved(paused), decisions: decide(paused, { action: "approve" }) })).rejects.toThrow(
      /belongs to a run of another task \("Twice the price\?"\); resume it with that task/,
    );
    const planTool = new PlanTool({ model: scriptedModel([]), tools: [] });
    await expect(planTool.run(TASK, { state: saved(paused) })).rejects.toThrow("This state was saved by a plan-and-execute run; it cannot resume a plan-tool run.");
    await expect(workflow.run(TASK, { decisions: { "plan-1": { action: "approve" } } })).rejects.toThrow(/is not waiting for a decision/);
    await expect(workflow.run(TASK, { state: { ...saved(paused), version: 99 } })).rejects.toThrow(/has version 99; this Stepwise reads versions up to 2/);
  });
});

describe("PlanTool pauses for plan approval", () => {
  const subtasks = '{"subtasks": ["Update a.ts", "Update b.ts"]}';
  function planTool(plannerTurns: ScriptedTurn[]) {
    const planner = scriptedModel(plannerTurns);
    const executor = echoExecutor();
    return { planner, executor, workflow: new PlanTool({ model: planner, executorModel: executor, tools: [], approvePlans: true }) };
  }

  it("pauses with the subtasks, and runs them once approved", async () => {
    const first = planTool([subtasks]);
    const paused = await first.workflow.run("Update both files");
    expect(paused.stopReason).toBe("awaiting-user");
    expect(paused.pending).toEqual([
      { id: "plan-1", name: "plan", kind: "plan", arguments: JSON.stringify({ task: "Update both files", steps: ["Update a.ts", "Update b.ts"] }) },
    ]);
    expect(first.executor.requests).toHaveLength(0);
    const second = planTool([]);
    const done = await second.workflow.run("Update both files", { state: saved(paused), decisions: decide(paused, { action: "approve" }) });
    expect(done).toMatchObject({ stopReason: "final", text: "[Plan execution results]\nSubtask 1: did: Update a.ts\nSubtask 2: did: Update b.ts" });
  });

  it("re-plans with the reason in the planner's saved conversation, and runs an edit", async () => {
    const paused = await planTool([subtasks]).workflow.run("Update both files");
    const second = planTool(['{"subtasks": ["Update a.ts"]}']);
    const again = await second.workflow.run("Update both files", { state: saved(paused), decisions: decide(paused, { action: "reject", reason: "Only a.ts." }) });
    const replanning = second.planner.requests[0]?.messages ?? [];
    expect(replanning.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(replanning[3]?.content).toContain("The user rejected this plan:\n1. Update a.ts\n2. Update b.ts\nTheir feedback: Only a.ts.");
    expect(again.pending?.[0]).toMatchObject({ id: "plan-2", arguments: JSON.stringify({ task: "Update both files", steps: ["Update a.ts"] }) });

    const third = planTool([]);
    const done = await third.workflow.run("Update both files", {
      state: saved(again),
      decisions: decide(again, { action: "edit", arguments: { steps: ["Update a.ts", "Run the tests"] } }),
    });
    expect(done.text).toContain("[Plan execution results]\nSubtask 1: did: Update a.ts\nSubtask 2: did: Run the tests");
    expect(done.text).toContain('- Step 2 "Run the tests" was added.');
    expect(done.trace.plans[0]?.review?.earlier).toEqual([{ steps: ["Update a.ts", "Update b.ts"], feedback: "Only a.ts." }]);
  });

  it("as the plan tool inside an agent, pauses the agent on the plan call with the subtasks as its arguments", async () => {
    const caller = (plannerTurns: ScriptedTurn[]) => {
      const { planner, executor, workflow } = planTool(plannerTurns);
      // Calls the plan tool, then answers with its result: a resumed agent picks up at the answer.
      const model = reactiveModel((req) =>
        req.messages.at(-1)?.role === "tool"
          ? String(req.messages.at(-1)?.content)
          : { toolCalls: [{ name: "plan", arguments: { task: "Update both files" }, id: "call-1" }] },
      );
      return { planner, executor, agent: new Agent({ name: "main", model, plugins: [workflow] }) };
    };
    const first = caller([subtasks]);
    const paused = await first.agent.run("go");
    expect(paused.stopReason).toBe("awaiting-user");
    expect(paused.pending).toEqual([
      { id: "call-1", name: "plan", kind: "approval", arguments: JSON.stringify({ task: "Update both files", steps: ["Update a.ts", "Update b.ts"] }) },
    ]);
    expect(first.executor.requests).toHaveLength(0);
    const state = JSON.parse(JSON.stringify(first.agent.saveState())) as ReturnType<Agent["saveState"]>;

    const approved = caller([]);
    const done = await approved.agent.resume(state, { "call-1": { action: "approve" } });
    expect(done.text).toBe("[Plan execution results]\nSubtask 1: did: Update a.ts\nSubtask 2: did: Update b.ts");
    expect(approved.planner.requests).toHaveLength(0);

    const edited = caller([]);
    const changed = await edited.agent.resume(state, {
      "call-1": { action: "edit", arguments: { task: "Update both files", steps: ["Update b.ts", "Run the tests"] } },
    });
    expect(changed.text).toContain("[Plan execution results]\nSubtask 1: did: Update b.ts\nSubtask 2: did: Run the tests");
    expect(changed.text).toContain('- The proposed step "Update a.ts" was removed.');

    const rejected = caller([]);
    const told = await rejected.agent.resume(state, { "call-1": { action: "reject", reason: "Only a.ts." } });
    expect(told.text).toContain("The user rejected this call: Only a.ts.");
    expect(rejected.executor.requests).toHaveLength(0);
    expect(rejected.agent.saveState().plugins["plan-tool"]).toEqual({ version: 1, proposals: {} });
  });
});
