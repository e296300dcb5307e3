import type { ApprovalDecision, PendingCall } from "../../core/approval.js";
import type { PlanDecision, PlanReview } from "./plan-review.js";
import type { WorkflowRun } from "./workflow-run.js";
import type { WorkflowOutcome } from "./workflow.js";

/** A plan waiting for the user, as a workflow keeps it in its progress. */
export type PlanProposal = {
  steps: string[];
  /** Earlier proposals of this review the user rejected, with their feedback. */
  earlier: { steps: string[]; feedback: string }[];
  callId: string;
};

/** What follows the user's decision: run these steps, re-plan with the feedback, or stop (rejected twice). */
export type ReviewStep = { run: string[]; review: PlanReview } | { replan: string } | { stop: PlanReview };

/** The pending call a paused run shows: its arguments are the plan, `{ task, steps }`. */
export function planPendingCall(task: string, proposal: PlanProposal): PendingCall {
  return { id: proposal.callId, name: "plan", kind: "plan", arguments: JSON.stringify({ task, steps: proposal.steps }) };
}

/** Pauses the run on a proposal, announcing it. */
export function pauseForPlan<P>(run: WorkflowRun<P>, proposal: PlanProposal): Promise<WorkflowOutcome> {
  run.recorder.emit({ type: "plan-approval-requested", workflow: run.workflow, task: run.task, steps: [...proposal.steps] });
  return run.pause([planPendingCall(run.task, proposal)]);
}

/**
 * Applies the user's decision to a proposal. An approved or edited plan runs; a rejected one is
 * re-planned once with the feedback and put to the user again; a second rejection stops.
 */
export function reviewProposal<P>(run: WorkflowRun<P>, proposal: PlanProposal, decision: ApprovalDecision): ReviewStep {
  const planDecision = toPlanDecision(decision);
  run.recorder.emit({ type: "plan-approval-decided", workflow: run.workflow, task: run.task, decision: structuredClone(planDecision) });
  const review: PlanReview = { proposed: proposal.steps, decision: planDecision, earlier: proposal.earlier };
  if (planDecision.action === "approve") return { run: proposal.steps, review };
  if (planDecision.action === "edit") return { run: planDecision.steps, review };
  if (proposal.earlier.length > 0) return { stop: review };
  proposal.earlier.push({ steps: proposal.steps, feedback: planDecision.feedback });
  return { replan: planDecision.feedback };
}

/** Reads a decision on a plan; an edit carries the changed plan as `{ steps }` or a list of steps. */
export function toPlanDecision(decision: ApprovalDecision): PlanDecision {
  switch (decision.action) {
    case "approve":
      return { action: "approve" };
    case "reject":
      return { action: "reject", feedback: decision.reason?.trim() || "(no feedback given)" };
    case "edit":
      return { action: "edit", steps: editedSteps(decision.arguments) };
    default:
      throw new Error(`A plan needs approve, edit or reject, not ${JSON.stringify(decision.action)}.`);
  }
}

function editedSteps(value: unknown): string[] {
  let plan = value;
  if (typeof plan === "string") {
    try {
      plan = JSON.parse(plan) as unknown;
    } catch {
      // Not JSON: reported below as the wrong shape.
    }
  }
  const steps = Array.isArray(plan) ? plan : (plan as { steps?: unknown } | null)?.steps;
  if (!Array.isArray(steps) || !steps.every((step) => typeof step === "string")) {
    const shown = JSON.stringify(value)?.slice(0, 200) ?? String(value);
    throw new Error(`An edited plan is { "steps": ["…"] } or a list of step texts; got ${shown}.`);
  }
  const kept = steps.map((step) => step.trim()).filter((step) => step.length > 0);
  if (kept.length === 0) throw new Error("An edited plan needs at least one step; to stop the plan, reject it instead.");
  return kept;
}
