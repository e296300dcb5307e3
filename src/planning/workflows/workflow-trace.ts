import type { PlanReview } from "./plan-review.js";

/** Which orchestrated workflow produced a trace or an event. */
export type WorkflowKind = "plan-tool" | "plan-and-execute" | "rewoo" | "llm-compiler";

/** One step as planned: its id in the workflow's own notation ("1", "#E2"), what it does, what it waits for. */
export type PlannedStep = { id: string; description: string; dependsOn: string[] };

/** One planning (or replanning) round. `fallback` is true when the planner's output was unusable. */
export type PlanRound = {
  round: number;
  steps: PlannedStep[];
  /** Why parts of the planner's output were refused, as told to the model. */
  errors: string[];
  fallback: boolean;
  /** Time the planner took; the user's review is not counted. */
  durationMs: number;
  /** How the user reviewed this plan before it ran, when the workflow asks for approval. */
  review?: PlanReview;
};

/** One executed step with its result and timing. */
export type StepRecord = {
  id: string;
  round: number;
  description: string;
  result: string;
  isError: boolean;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
};

/** Everything a workflow did, in order: the plans, each step's result and timings, the answer. */
export type WorkflowTrace = {
  workflow: WorkflowKind;
  task: string;
  plans: PlanRound[];
  steps: StepRecord[];
  answer: string;
  startedAt: number;
  durationMs: number;
};
