import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "../../core/approval.js";
import type { AgentEvent } from "../../core/events.js";
import type { ModelRequest } from "../../core/model.js";
import { scriptedModel } from "../../models/scripted.js";
import { PlanAndExecute } from "./plan-and-execute/plan-and-execute.js";
import { PlanTool } from "./plan-tool/plan-tool.js";
import type { Workflow, WorkflowOutcome } from "./workflow.js";

/**
 * Runs a workflow that pauses on its plans, answering each pause with the next decision as a user
 * would (the saved state through JSON, as across processes); remembers the plans shown.
 */
async function decideEach(workflow: Workflow, task: string, ...decisions: ApprovalDecision[]): Promise<WorkflowOutcome & { shown: string[][] }> {
  const shown: string[][] = [];
  let outcome = await workflow.run(task);
  while (outcome.stopReason === "awaiting-user") {
    const call = outcome.pending?.[0];
    const decision = decisions.shift();
    if (!call || !decision) throw new Error("the workflow paused more often than scripted");
    shown.push((JSON.parse(call.arguments) as { steps: string[] }).steps);
    outcome = await workflow.run(task, { state: JSON.parse(JSON.stringify(outcome.state)) as WorkflowOutcome["state"], decisions: { [call.id]: decision } });
  }
  return { ...outcome, shown };
}

/** An executor that reports the step it was given, so the results show what ran. */
const echoExecutor = () =>
  scriptedModel(
    Array.from({ length: 6 }, () => (req: ModelRequest) => {
      const input = String(req.messages.at(-1)?.content);
      return `did: ${/(?:Current step|Your subtask \(\d+ of \d+\)): (.*)/.exec(input)?.[1]}`;
    }),
  );

const userInput = (model: ReturnType<typeof scriptedModel>, i: number) => String(model.requests[i]?.messages.at(-1)?.content);

describe("PlanAndExecute with plan approval", () => {
  const proposal = '{"steps": ["Fetch the price", "Double it"]}';

  it("runs an approved plan as proposed", async () => {
    const executor = echoExecutor();
    const workflow = new PlanAndExecute({ model: scriptedModel([proposal]), executorModel: executor, replan: false, approvePlans: true });
    const { trace, shown } = await decideEach(workflow, "Twice the price?", { action: "approve" });
    expect(shown).toEqual([["Fetch the price", "Double it"]]);
    expect(trace.steps.map((s) => s.result)).toEqual(["did: Fetch the price", "did: Double it"]);
    expect(trace.plans[0]?.review).toEqual({ proposed: ["Fetch the price", "Double it"], decision: { action: "approve" }, earlier: [] });
    expect(userInput(executor, 0)).not.toContain("review");
  });

  it("runs the edited steps, tells executors and the replanner what changed, and announces the approval", async () => {
    const planner = scriptedModel([proposal, '{"steps": ["Add VAT", "Double it"]}', '{"steps": ["Double it"]}', '{"answer": "done"}']);
    const executor = echoExecutor();
    const events: AgentEvent[] = [];
    const workflow = new PlanAndExecute({ model: planner, executorModel: executor, approvePlans: true, onEvent: (e) => events.push(e) });
    const { trace } = await decideEach(workflow, "Twice the price?", { action: "edit", arguments: { steps: ["Fetch the price in EUR", "Add VAT", "Double it"] } });

    expect(trace.steps.map((s) => s.result)).toEqual(["did: Fetch the price in EUR", "did: Add VAT", "did: Double it"]);
    expect(trace.plans[0]?.steps.map((s) => s.description)).toEqual(["Fetch the price in EUR", "Add VAT", "Double it"]);
    expect(trace.plans[0]?.review?.proposed).toEqual(["Fetch the price", "Double it"]);
    const told = [
      "The user's review of the plan:",
      "The user changed the plan before it ran; follow the plan as changed. What changed:",
      '- Step 1 is now "Fetch the price in EUR" (proposed: "Fetch the price").',
      '- Step 2 "Add VAT" was added.',
    ].join("\n");
    expect(userInput(executor, 0)).toContain(told);
    expect(userInput(executor, 2)).toContain(told);
    expect(userInput(planner, 1)).toMatch(/The user reviewed the plan before it ran\. Keep to their changes[^\n]*\n.*\n- Step 1 is now/);
    const approval = events.filter((e) => e.type.startsWith("plan-approval"));
    expect(approval.map((e) => e.type)).toEqual(["plan-approval-requested", "plan-approval-decided"]);
    expect(approval[0]).toMatchObject({ workflow: "plan-and-execute", task: "Twice the price?", steps: ["Fetch the price", "Double it"] });
    expect(approval[1]).toMatchObject({ decision: { action: "edit", steps: ["Fetch the price in EUR", "Add VAT", "Double it"] } });
    // The plan shown is the one that runs: workflow-planned comes after the decision.
    expect(events.findIndex((e) => e.type === "workflow-planned")).toBeGreaterThan(events.findIndex((e) => e.type === "plan-approval-decided"));
  });

  it("re-plans with the user's feedback, then runs the plan they approve", async () => {
    const planner = scriptedModel([proposal, '{"steps": ["Read the price list", "Double it"]}']);
    const executor = echoExecutor();
    const workflow = new PlanAndExecute({ model: planner, executorModel: executor, replan: false, approvePlans: true });
    const { trace, shown } = await decideEach(workflow, "Twice the price?", { action: "reject", reason: "Use the shop's own price list." }, { action: "approve" });

    const replanning = planner.requests[1]?.messages ?? [];
    expect(replanning.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(replanning[3]?.content).toBe(
      'The user rejected this plan:\n1. Fetch the price\n2. Double it\nTheir feedback: Use the shop\'s own price list.\n' +
        'Write a new plan for the same task that addresses the feedback.\nReply with only {"steps": ["…"]}.',
    );
    expect(shown).toEqual([["Fetch the price", "Double it"], ["Read the price list", "Double it"]]);
    expect(trace.steps.map((s) => s.result)).toEqual(["did: Read the price list", "did: Double it"]);
    expect(userInput(executor, 0)).toContain("The user rejected the planner's first proposal with this feedback: Use the shop's own price list.");
  });

  it("stops without running anything when the user rejects the plan twice", async () => {
    const executor = echoExecutor();
    const workflow = new PlanAndExecute({ model: scriptedModel([proposal, proposal]), executorModel: executor, approvePlans: true });
    const { answer, trace } = await decideEach(workflow, "Twice the price?", { action: "reject", reason: "Too vague." }, { action: "reject", reason: "Still vague." });
    expect(answer).toBe('Nothing was done: the user rejected the plan twice. Their feedback: "Too vague.", then "Still vague.".');
    expect(executor.requests).toHaveLength(0);
    expect(trace.steps).toEqual([]);
    expect(trace.plans[0]?.review?.decision).toEqual({ action: "reject", feedback: "Still vague." });
  });

  it("asks again about the same plan after an edit that leaves no step, and runs it once approved", async () => {
    const workflow = new PlanAndExecute({ model: scriptedModel([proposal]), executorModel: echoExecutor(), replan: false, approvePlans: true });
    const done = await decideEach(workflow, "Twice the price?", { action: "edit", arguments: { steps: [" "] } }, { action: "approve" });
    expect(done.shown).toEqual([
      ["Fetch the price", "Double it"],
      ["Fetch the price", "Double it"],
    ]);
    expect(done.trace.steps.map((s) => s.result)).toEqual(["did: Fetch the price", "did: Double it"]);
  });
});

describe("PlanTool with plan approval", () => {
  function setup(plannerTurns: string[]) {
    const planner = scriptedModel(plannerTurns);
    const executor = echoExecutor();
    const plan = new PlanTool({ model: planner, executorModel: executor, tools: [], approvePlans: true });
    return { planner, executor, plan };
  }
  const proposal = '{"subtasks": ["Update a.ts", "Update b.ts"]}';

  it("runs approved subtasks as planned", async () => {
    const { plan } = setup([proposal]);
    expect((await decideEach(plan, "Update both files", { action: "approve" })).text).toBe(
      "[Plan execution results]\nSubtask 1: did: Update a.ts\nSubtask 2: did: Update b.ts",
    );
  });

  it("runs the edited subtasks and tells the helpers and the caller what the user changed", async () => {
    const { plan, executor } = setup([proposal]);
    const result = await decideEach(plan, "Update both files", { action: "edit", arguments: { steps: ["Update b.ts", "Run the tests"] } });
    const changes = [
      "The user changed the plan before it ran; follow the plan as changed. What changed:",
      '- The proposed step "Update a.ts" was removed.',
      '- Step 2 "Run the tests" was added.',
    ].join("\n");
    expect(result.text).toBe(
      `[The user's review of the plan]\n${changes}\n[Plan execution results]\nSubtask 1: did: Update b.ts\nSubtask 2: did: Run the tests`,
    );
    expect(userInput(executor, 0)).toContain(`The user's review of the plan:\n${changes}`);
  });

  it("gives the planner the feedback on a rejected plan, and after a second rejection tells the caller nothing ran", async () => {
    const { plan, planner, executor } = setup([proposal, '{"subtasks": ["Update a.ts"]}']);
    const result = await decideEach(plan, "Update both files", { action: "reject", reason: "Only touch a.ts." }, { action: "reject", reason: "No." });
    expect(userInput(planner, 1)).toContain("The user rejected this plan:\n1. Update a.ts\n2. Update b.ts\nTheir feedback: Only touch a.ts.");
    expect(userInput(planner, 1)).toMatch(/Reply with only \{"subtasks"/);
    expect(result.shown).toEqual([["Update a.ts", "Update b.ts"], ["Update a.ts"]]);
    expect(executor.requests).toHaveLength(0);
    expect(result.text).toMatch(/^Nothing was done: the user rejected the plan twice\. Their feedback: "Only touch a\.ts\.", then "No\."\. Do not carry out the task another way/);
  });
});
