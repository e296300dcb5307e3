import type { ApprovalDecision, PendingCall } from "../../core/approval.js";
import { boundedQuote } from "../../core/bounded-quote.js";
import type { PlanDecision, PlanReview } from "./plan-review.js";
import type { WorkflowOutcome } from "./workflow.js";

/** A proposal the user rejected, with their feedback. */
export type RejectedPlan = { steps: string[]; feedback: string };

/**
 * A plan waiting for the user, as the workflow run keeps it (see WorkflowApprovals), with what the
 * workflow keeps beside its steps (`X`: the planner's reply, its errors, …).
 */
export type PlanProposal<X extends object = object> = X & {
  steps: string[];
  /** Earlier proposals of this review the user rejected, with their feedback. */
  earlier: RejectedPlan[];
  callId: string;
};

/**
 * What the user's decision on a proposal leads to, for `WorkflowRun.reviewPlan`:
 * - `unreviewed`: no plan waits for a decision;
 * - `asked-again`: the user's edit cannot run, and the run paused again on the same proposal (`outcome`);
 * - `approved`: run `steps` (the user's when `edited`);
 * - `replan`: rejected the first time: plan once more with `rejected`'s feedback and propose again, with `earlier`;
 * - `rejected`: rejected a second time: nothing runs.
 */
export type PlanReviewed<X extends object = object> =
  | { kind: "unreviewed" }
  | { kind: "asked-again"; outcome: WorkflowOutcome }
  | { kind: "approved"; steps: string[]; edited: boolean; review: PlanReview; proposal: PlanProposal<X> }
  | { kind: "replan"; rejected: RejectedPlan; earlier: RejectedPlan[]; proposal: PlanProposal<X> }
  | { kind: "rejected"; review: PlanReview; proposal: PlanProposal<X> };

/** Why a workflow cannot run the steps a user edited (its own plan form), or null when it can. */
export type EditedPlanCheck = (steps: string[]) => string | null;

/**
 * The pending call a paused run shows: its arguments are the plan, `{ task, steps }`, and, when the
 * user's last edit could not run, `problem`, what was wrong with it.
 */
export function planPendingCall(task: string, proposal: Pick<PlanProposal, "steps" | "callId">, problem?: string): PendingCall {
  const args = { task, steps: proposal.steps, ...(problem ? { problem } : {}) };
  return { id: proposal.callId, name: "plan", kind: "plan", arguments: JSON.stringify(args) };
}

/**
 * Reads the user's decision on a proposal: the plan decision, or, for an edit that is not a list of
 * steps or that `checkEdit` refuses, what the user is told when asked again (nothing is lost).
 */
export function readPlanDecision(decision: ApprovalDecision, checkEdit?: EditedPlanCheck): { decision: PlanDecision } | { unusable: string } {
  let planDecision: PlanDecision;
  try {
    planDecision = toPlanDecision(decision);
  } catch (error) {
    if (decision.action !== "edit") throw error;
    return { unusable: unusableEditText(decision.arguments, (error as Error).message) };
  }
  const problem = planDecision.action === "edit" ? (checkEdit?.(planDecision.steps) ?? null) : null;
  if (problem !== null) return { unusable: unusableEditText(decision.action === "edit" ? decision.arguments : undefined, problem) };
  return { decision: planDecision };
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
