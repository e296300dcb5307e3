import type { ApprovalDecisions, PendingCall } from "../../core/approval.js";
import type { AgentEvent, EventParent } from "../../core/events.js";
import type { WorkflowKind, WorkflowTrace } from "./workflow-trace.js";

/** Bumped when a saved WorkflowState changes shape; states of a newer version are refused. */
export const WORKFLOW_STATE_VERSION = 1;

/**
 * How a workflow run stopped. "awaiting-approval": a plan waits for the user (see `pending`);
 * "max-steps": the step limit ended it before the plan did; "no-answer": it ended without an
 * answer (the user rejected the plan again, or the planning rounds ran out).
 */
export type WorkflowStopReason = "final" | "max-steps" | "aborted" | "awaiting-approval" | "no-answer";

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
  /** The plan approvals the run waits for. */
  pending?: PendingCall[];
  /** Set once the run has ended: running from this state again returns the same outcome. */
  ended?: { text: string; stopReason: "final" | "max-steps" | "no-answer" };
  progress: unknown;
};

export type WorkflowRunOptions = {
  signal?: AbortSignal;
  /** A checkpoint to go on from (of a run killed, aborted or paused, in this process or another). */
  state?: WorkflowState;
  /** The user's decisions on the pending plan approvals of `state`. */
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
