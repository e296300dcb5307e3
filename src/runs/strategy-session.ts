import type { ApprovalDecisions, PendingCall } from "../core/approval.js";
import type { AgentEventListener } from "../core/events.js";
import type { StopReason } from "../core/run-result.js";
import type { Checklist } from "./checklist.js";

/** How a session's run ended; "no-answer": a workflow ended without answering (`text` says why), as WorkflowStopReason has it. */
export type SessionOutcome = { text: string; stopReason: StopReason | "no-answer"; pending?: PendingCall[] };

/**
 * One strategy, ready to run a task: an agent with a planning plugin, or a
 * plan-then-execute workflow. The run layer only talks to this, whatever the strategy.
 */
export interface StrategySession {
  readonly strategy: string;
  on(listener: AgentEventListener): () => void;
  /**
   * `signal` stops the run at once ("aborted", a call in flight cut off); `stopAfterStep` stops it
   * "aborted" between steps, once the step in flight (a model call, its tool calls, a workflow's
   * step) has finished and been checkpointed.
   */
  run(task: string, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome>;
  /** Goes on from the restored checkpoint (a killed or stopped run). */
  continue(task: string, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome>;
  /** Applies the user's decisions to a run that stopped awaiting approval, and goes on. */
  resume(decisions: ApprovalDecisions, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome>;
  /** Calls waiting for the user's decision (after a restore, too). */
  pending(): PendingCall[];
  /** Plain JSON to save after each turn; `restore` takes it back in a later process. */
  checkpoint(): unknown;
  restore(checkpoint: unknown): void;
  /** The plan as it stands, for the live view. */
  checklist(): Promise<Checklist | null>;
  close(): Promise<void>;
}
