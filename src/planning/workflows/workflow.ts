import type { ApprovalDecisions, PendingCall } from "../../core/approval.js";
import type { AgentEvent, EventParent } from "../../core/events.js";
import type { HeldCalls } from "./call-approval.js";
import type { PlanProposal } from "./plan-approval.js";
import type { WorkflowKind, WorkflowTrace } from "./workflow-trace.js";

/**
 * Bumped when a saved WorkflowState changes shape; states of a newer version are refused, older ones
 * are read as this version has them. 2: the approval state moved from `progress` to `approvals`.
 */
export const WORKFLOW_STATE_VERSION = 2;

/**
 * How a workflow run stopped, in the agent's words (StopReason). "awaiting-user": a plan, a step's
 * call or a question waits for the user (see `pending`, each call's `kind`);
 * "max-steps": the step limit ended it before the plan did; "no-answer": it ended without an
 * answer (the user rejected the plan again, or the planning rounds ran out).
 */
export type WorkflowStopReason = "final" | "max-steps" | "aborted" | "awaiting-user" | "no-answer";

/**
 * Where a workflow run stands, as plain JSON: saved at every checkpoint, given back to `run` to go on
 * from there. `progress` belongs to the workflow that wrote it.
 */
export type WorkflowState = {
  version: number;
  workflow: WorkflowKind;
  task: string;
  /** The trace so far; its answer is set once the run has ended. */
  trace: WorkflowTrace;
  /** What the run waits on: the calls the user must decide (a plan, a step's call, a question). */
  pending?: PendingCall[];
  /** The user's part in the run, the same for every workflow (absent in states of version 1, which kept it in `progress`). */
  approvals?: WorkflowApprovals;
  /** Set once the run has ended: running from this state again returns the same outcome. */
  ended?: { text: string; stopReason: "final" | "max-steps" | "no-answer" };
  progress: unknown;
};

/**
 * What a workflow run keeps of the user's decisions, beside the workflow's own progress: the plan
 * under review, how many were proposed (numbering their calls), what the review changed, and the
 * workflow's own tool calls held for the user. Owned by the run (see WorkflowRun), never by a workflow.
 */
export type WorkflowApprovals<X extends object = object> = {
  proposal?: PlanProposal<X>;
  proposals: number;
  /** What the user's review of the plan changed, for the steps that follow; null when it changed nothing. */
  note: string | null;
  held: HeldCalls;
};

export type WorkflowRunOptions = {
  /** Stops the run at once, as "aborted": a model or tool call in flight is cut off. */
  signal?: AbortSignal;
  /**
   * Stops the run as "aborted" between its steps: the step in flight (a plan, a step's agent's turn,
   * a tool call) finishes and is checkpointed first, and a resumed run does not make it again.
   */
  stopAfterStep?: AbortSignal;
  /** A checkpoint to go on from (of a run killed, aborted or paused, in this process or another). */
  state?: WorkflowState;
  /** The user's decisions on the pending calls of `state`. */
  decisions?: ApprovalDecisions;
  /** Called with each checkpoint, in order; the run waits for it, and fails if it throws. */
  onCheckpoint?: (state: WorkflowState) => void | Promise<void>;
  /** Receives this run's events (on top of the workflow's own `onEvent`). */
  onEvent?: (event: AgentEvent) => void;
  /** The run this one serves (the agent whose tool call started it); its events carry it. */
  parent?: EventParent;
};

export type WorkflowResult = { answer: string; trace: WorkflowTrace };

/** How a run ended or paused. `answer` and `trace` are kept for code written against WorkflowResult. */
export type WorkflowOutcome = WorkflowResult & {
  text: string;
  stopReason: WorkflowStopReason;
  pending?: PendingCall[];
  state: WorkflowState;
};

/** A plan-then-execute workflow: give it a task, get the answer and how it was reached. */
export interface Workflow {
  run(task: string, opts?: WorkflowRunOptions): Promise<WorkflowOutcome>;
}
