// What planners, executors and callers read about the user's review of a plan. plan-approval-prompts.test.ts checks them.
import { alignLists } from "../plan-edits/list-alignment.js";
import type { PlanReview } from "./plan-review.js";

/** One line per change the user's edit made to the proposed steps, numbered 1-based as in the edited plan. */
export function stepEditChanges(proposed: readonly string[], edited: readonly string[]): string[] {
  return alignLists(proposed, edited).flatMap((step) => {
    switch (step.kind) {
      case "kept":
        return [];
      case "added":
        return [`Step ${step.to + 1} "${edited[step.to]}" was added.`];
      case "removed":
        return [`The proposed step "${proposed[step.from]}" was removed.`];
      case "replaced":
        return [`Step ${step.to + 1} is now "${edited[step.to]}" (proposed: "${proposed[step.from]}").`];
      case "moved":
        return [`The step "${edited[step.to]}" moved from position ${step.from + 1} to ${step.to + 1}.`];
    }
  });
}

/**
 * What the executors and the caller are told about the review of the plan that runs: the feedback on
 * a rejected first proposal and what an edit changed. Null when the user approved the first proposal.
 */
export function planReviewNote(review: PlanReview): string | null {
  const lines: string[] = [];
  for (const { feedback } of review.earlier) {
    lines.push(`The user rejected the planner's first proposal with this feedback: ${feedback}`);
  }
  if (review.decision.action === "edit") {
    const changes = stepEditChanges(review.proposed, review.decision.steps);
    if (changes.length > 0) {
      lines.push(
        "The user changed the plan before it ran; follow the plan as changed. What changed:",
        ...changes.map((change) => `- ${change}`),
      );
    }
  }
  return lines.length > 0 ? lines.join("\n") : null;
}

/** The planner's next input after the user rejected its plan. */
export function rejectedPlanFeedback(steps: readonly string[], feedback: string): string {
  return [
    "The user rejected this plan:",
    ...steps.map((step, i) => `${i + 1}. ${step}`),
    `Their feedback: ${feedback}`,
    "Write a new plan for the same task that addresses the feedback.",
  ].join("\n");
}

/** The workflow's answer when the user rejected both proposals: nothing was run. */
export function planRejectedAnswer(review: PlanReview): string {
  const feedback = quotedFeedback(review);
  return `Nothing was done: the user rejected the plan${review.earlier.length > 0 ? " twice" : ""}. Their feedback: ${feedback}.`;
}

/** Plan-and-execute's answer when the user rejected a revised plan twice: the steps done stay done. */
export function replanRejectedAnswer(review: PlanReview, doneCount: number, lastResult: string): string {
  const feedback = quotedFeedback(review);
  return [
    `Stopped after ${doneCount} step(s): the user rejected the revised plan twice. Their feedback: ${feedback}.`,
    `Result of the last step done: ${lastResult || "(none)"}`,
  ].join("\n");
}

/** Every rejection's feedback in order, quoted: "first", then "second". */
function quotedFeedback(review: PlanReview): string {
  return [...review.earlier.map((r) => r.feedback), review.decision.action === "reject" ? review.decision.feedback : ""]
    .filter((text) => text.length > 0)
    .map((text) => `"${text}"`)
    .join(", then ");
}
