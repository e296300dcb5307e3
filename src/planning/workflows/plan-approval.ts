import type { AgentEventInit } from "../../core/events.js";
import type { PlanDecision, PlanReview } from "./plan-review.js";
import type { WorkflowKind } from "./workflow-trace.js";

/** Asks the user about a plan before it runs (a terminal prompt, a web form, a test script). */
export type PlanApprover = (plan: { task: string; steps: string[] }) => Promise<PlanDecision>;

/** One planner attempt as a workflow makes it: `steps` is undefined when the output was unusable. */
export type PlannerAttempt = { steps?: string[]; errors: string[]; durationMs: number };

/** The plan a workflow runs, how it came about, and the user's review of it when there was one. */
export type ReviewedPlan = { steps: string[]; errors: string[]; fallback: boolean; durationMs: number; review?: PlanReview };

/**
 * Plans, falling back to the task as the only step when the planner fails, and puts the plan before
 * the user when an approver is given: `plan` is called again with the rejection to re-plan.
 */
export async function planWithReview(opts: {
  workflow: WorkflowKind;
  task: string;
  approve: PlanApprover | undefined;
  plan: (rejection?: { steps: string[]; feedback: string }) => Promise<PlannerAttempt>;
  emit: (event: AgentEventInit) => void;
}): Promise<ReviewedPlan> {
  const attempt = async (rejection?: { steps: string[]; feedback: string }) => {
    const planned = await opts.plan(rejection);
    result.errors.push(...planned.errors);
    result.durationMs += planned.durationMs;
    result.fallback = planned.steps === undefined;
    return planned.steps ?? [opts.task];
  };
  const result: ReviewedPlan = { steps: [], errors: [], fallback: false, durationMs: 0 };
  result.steps = await attempt();
  if (!opts.approve) return result;
  const { steps, review } = await reviewPlan({
    ...opts,
    approve: opts.approve,
    proposed: result.steps,
    replan: (rejected, feedback) => attempt({ steps: rejected, feedback }),
  });
  return { ...result, steps, review };
}

/**
 * Puts a proposed plan before the user. An approved or edited plan is returned to run; a rejected one
 * is re-planned once with the feedback and asked about again; a second rejection ends the review with
 * decision "reject" and nothing to run.
 */
async function reviewPlan(opts: {
  workflow: WorkflowKind;
  task: string;
  proposed: string[];
  approve: PlanApprover;
  /** A new proposal from the planner, given the rejected one and the user's feedback. */
  replan: (rejected: string[], feedback: string) => Promise<string[]>;
  emit: (event: AgentEventInit) => void;
}): Promise<{ steps: string[]; review: PlanReview }> {
  const { workflow, task } = opts;
  const earlier: PlanReview["earlier"] = [];
  let proposed = opts.proposed;
  for (;;) {
    opts.emit({ type: "plan-approval-requested", workflow, task, steps: [...proposed] });
    const decision = checkDecision(await opts.approve({ task, steps: [...proposed] }));
    opts.emit({ type: "plan-approval-decided", workflow, task, decision: structuredClone(decision) });
    const review: PlanReview = { proposed, decision, earlier };
    if (decision.action === "approve") return { steps: proposed, review };
    if (decision.action === "edit") return { steps: decision.steps, review };
    if (earlier.length > 0) return { steps: proposed, review };
    earlier.push({ steps: proposed, feedback: decision.feedback });
    proposed = await opts.replan(proposed, decision.feedback);
  }
}

/** Cleans what the approver returned; an edit that leaves no step is a mistake of the caller, not a way to stop. */
function checkDecision(decision: PlanDecision): PlanDecision {
  switch (decision.action) {
    case "approve":
      return { action: "approve" };
    case "edit": {
      const steps = decision.steps.map((step) => step.trim()).filter((step) => step.length > 0);
      if (steps.length === 0) throw new Error("An edited plan needs at least one step; to stop the plan, reject it instead.");
      return { action: "edit", steps };
    }
    case "reject":
      return { action: "reject", feedback: decision.feedback.trim() || "(no feedback given)" };
    default:
      throw new Error(`Unknown plan decision ${JSON.stringify(decision)}: use approve, edit or reject.`);
  }
}
