import type { PlanDecision } from "./plan-review.js";
import type { PlannedStep, WorkflowKind } from "./workflow-trace.js";

/**
 * What a workflow does when its planner gave nothing usable: runs the whole task as its one step
 * (plan-and-execute, the plan tool), answers without running any step (ReWOO's solver from the task
 * alone, the compiler's joiner from what is known), or goes on with the steps it had (a replanner).
 */
export type PlanFallback = "task-as-one-step" | "answer-without-steps" | "keep-remaining-steps";

declare module "../../core/events.js" {
  interface AgentEventMap {
    /** A planner (or replanner) has begun round `round`'s plan: planning can take a while. */
    "workflow-planning-started": { workflow: WorkflowKind; round: number };
    /** A planner (or replanner) produced a plan; `fallback` when its output was unusable. */
    "workflow-planned": { workflow: WorkflowKind; round: number; steps: PlannedStep[]; errors: string[]; fallback: boolean };
    /**
     * The planner's reply could not be used, after its retry: the run goes on without the plan it
     * asked for, as `instead` says. `errors`: why each reply was refused, as the planner was told.
     */
    "planning-failed": { workflow: WorkflowKind; round: number; errors: string[]; instead: PlanFallback };
    "workflow-step-start": { workflow: WorkflowKind; round: number; step: PlannedStep };
    "workflow-step-end": {
      workflow: WorkflowKind;
      round: number;
      stepId: string;
      result: string;
      isError: boolean;
      durationMs: number;
    };
    /** Plan-and-execute folded old steps into a summary to keep its prompts within budget. */
    "workflow-history-summarized": { workflow: WorkflowKind; foldedSteps: number; summaryTokens: number };
    "workflow-end": { workflow: WorkflowKind; answer: string; rounds: number; durationMs: number };
    /** A plan waits for the user's approval before it runs. */
    "plan-approval-requested": { workflow: WorkflowKind; task: string; steps: string[] };
    "plan-approval-decided": { workflow: WorkflowKind; task: string; decision: PlanDecision };
  }
}

/** The events the workflows add to the agent event stream. */
export type WorkflowEventType =
  | "workflow-planning-started"
  | "workflow-planned"
  | "planning-failed"
  | "workflow-step-start"
  | "workflow-step-end"
  | "workflow-history-summarized"
  | "workflow-end"
  | "plan-approval-requested"
  | "plan-approval-decided";
