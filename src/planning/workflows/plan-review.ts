/** The user's answer to a proposed plan: run it, run their edited steps instead, or re-plan with their feedback. */
export type PlanDecision = { action: "approve" } | { action: "edit"; steps: string[] } | { action: "reject"; feedback: string };

/**
 * The user's review of a plan. `proposed` is the planner's last proposal; after an edit the round's
 * steps are the user's, and after a second rejection nothing ran.
 */
export type PlanReview = {
  proposed: string[];
  decision: PlanDecision;
  /** An earlier proposal the user rejected, with their feedback (the planner was asked again). */
  earlier: { steps: string[]; feedback: string }[];
};
