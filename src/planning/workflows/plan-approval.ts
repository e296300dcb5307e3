import type { ApprovalDecision, PendingCall } from "../../core/approval.js";
import { boundedQuote } from "../../core/bounded-quote.js";
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

/**
 * What follows the user's decision: run these steps, re-plan with the feedback, stop (rejected
 * twice), or ask again about the same proposal because the user's edit cannot run (`askAgain` says why).
 */
export type ReviewStep = { run: string[]; review: PlanReview } | { replan: string } | { stop: PlanReview } | { askAgain: string };

/** Why a workflow cannot run the steps a user edited (its own plan form), or null when it can. */
export type EditedPlanCheck = (steps: string[]) => string | null;

/**
 * The pending call a paused run shows: its arguments are the plan, `{ task, steps }`, and, when the
 * user's last edit could not run, `problem`, what was wrong with it.
 */
export function planPendingCall(task: string, proposal: PlanProposal, problem?: string): PendingCall {
  const args = { task, steps: proposal.steps, ...(problem ? { problem } : {}) };
  return { id: proposal.callId, name: "plan", kind: "plan", arguments: JSON.stringify(args) };
}

/** Pauses the run on a proposal, announcing it; `problem` is why the user is asked again. */
export function pauseForPlan<P>(run: WorkflowRun<P>, proposal: PlanProposal, problem?: string): Promise<WorkflowOutcome> {
  run.recorder.emit({ type: "plan-approval-requested", workflow: run.workflow, task: run.task, steps: [...proposal.steps] });
  return run.pause([planPendingCall(run.task, proposal, problem)]);
}

/**
 * Applies the user's decision to a proposal. An approved or edited plan runs; a rejected one is
 * re-planned once with the feedback and put to the user again; a second rejection stops. An edit
 * that is not a list of steps, or that `checkEdit` refuses, loses nothing: the user is asked again
 * about the same proposal, told what was wrong.
 */
export function reviewProposal<P>(run: WorkflowRun<P>, proposal: PlanProposal, decision: ApprovalDecision, checkEdit?: EditedPlanCheck): ReviewStep {
  let planDecision: PlanDecision;
  try {
    planDecision = toPlanDecision(decision);
  } catch (error) {
    if (decision.action !== "edit") throw error;
    return { askAgain: unusableEditText(decision.arguments, (error as Error).message) };
  }
  const problem = planDecision.action === "edit" ? (checkEdit?.(planDecision.steps) ?? null) : null;
  if (problem !== null) return { askAgain: unusableEditText(decision.action === "edit" ? decision.arguments : undefined, problem) };
  run.recorder.emit({ type: "plan-approval-decided", workflow: run.workflow, task: run.task, decision: structuredClone(planDecision) });
  const review: PlanReview = { proposed: proposal.steps, decision: planDecision, earlier: proposal.earlier };
  if (planDecision.action === "approve") return { run: proposal.steps, review };
  if (planDecision.action === "edit") return { run: planDecision.steps, review };
  if (proposal.earlier.length > 0) return { stop: review };
  proposal.earlier.push({ steps: proposal.steps, feedback: planDecision.feedback });
  return { replan: planDecision.feedback };
}

/** What the user is told when their edit cannot run: their edit (bounded), what was wrong, and what they can do. */
function unusableEditText(edit: unknown, problem: string): string {
  const shown = typeof edit === "string" ? edit : (JSON.stringify(edit) ?? String(edit));
  return `Your edited plan ${boundedQuote(shown)} was not used: ${problem} The proposed plan is unchanged: approve it, edit it again, or reject it.`;
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
    throw new Error('An edited plan is { "steps": ["…"] } or a list of step texts.');
  }
  const kept = steps.map((step) => step.trim()).filter((step) => step.length > 0);
  if (kept.length === 0) throw new Error("An edited plan needs at least one step; to stop the plan, reject it instead.");
  return kept;
}
