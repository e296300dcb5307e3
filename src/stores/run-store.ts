import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";

export type RunStatus = "running" | "finished" | "no-answer" | "failed" | "aborted" | "awaiting-approval" | "max-steps";

/** One run as the CLI, the viewer and the run layer list it. */
export type RunRecord = {
  id: string;
  task: string;
  strategy: string;
  model: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  answer: string | null;
  /** Who drives the run now, until when; null when nobody holds it. */
  lease: { holder: string; expiresAt: string } | null;
  /** True when decisions wait for a driver to resume the paused run with them. */
  decided: boolean;
};

export type NewRun = Pick<RunRecord, "id" | "task" | "strategy" | "model">;

export type LoggedEvent = { seq: number; event: AgentEvent };

/**
 * The right to drive one run. `token` grows with every takeover: a write carrying an older token is
 * refused, so a driver that lost its lease (paused, cut off, presumed dead) can never overwrite the
 * run after another process took it over.
 */
export type RunLease = { readonly runId: string; readonly holder: string; readonly token: number };

/** Someone else holds the run's lease: it is being driven or resumed elsewhere. */
export class RunBusyError extends Error {
  override name = "RunBusyError";
  constructor(
    readonly runId: string,
    readonly holder: string,
  ) {
    super(`run ${runId} is already being resumed by ${holder}`);
  }
}

/** A write carried a lease another process has since taken over: the writer must stop driving the run. */
export class RunLeaseLostError extends Error {
  override name = "RunLeaseLostError";
  constructor(
    readonly runId: string,
    holder: string,
    takenBy: string | null,
    why = `it was taken over by ${takenBy ?? "another process"}`,
  ) {
    super(`run ${runId}: ${why}; ${holder} no longer holds its lease, so its writes are refused and it stops driving the run`);
  }
}

/** The run does not exist in this store. */
export class RunNotFoundError extends Error {
  override name = "RunNotFoundError";
  constructor(readonly runId: string) {
    super(`there is no run ${runId} in this store`);
  }
}

/**
 * Where runs, their settings, checkpoints and event streams are kept, so that any process (the
 * viewer, `stepwise run --resume`, a worker on another machine) can follow or continue a run. Every
 * call commits on its own: a process killed between two calls leaves everything before readable.
 * Writes to a run carry its lease and are refused with `RunLeaseLostError` once the lease was taken
 * over; reads need none.
 */
export interface RunStore {
  /** Creates a running run with its settings, leased to `holder` for `ttlMs`. */
  createRun(run: NewRun, settings: unknown, holder: string, ttlMs: number): Promise<RunLease>;
  getRun(id: string): Promise<RunRecord | undefined>;
  /** Newest first. */
  listRuns(limit?: number): Promise<RunRecord[]>;
  /**
   * Takes the run for `holder`: succeeds only when nobody holds it, the holder's lease expired, or the
   * holder is `replacing` (a holder the caller knows is dead), and then exactly one of several racing
   * callers wins; the others get `RunBusyError`.
   */
  acquireLease(runId: string, holder: string, ttlMs: number, replacing?: string): Promise<RunLease>;
  /** Extends the lease (the driver's heartbeat); `RunLeaseLostError` when it was taken over. */
  renewLease(lease: RunLease, ttlMs: number): Promise<void>;
  /** Lets the run go (its driver stopped); harmless when the lease was already taken over. */
  releaseLease(lease: RunLease): Promise<void>;
  /** Appends an event; returns its sequence number (1, 2, 3… per run). */
  appendEvent(lease: RunLease, event: AgentEvent): Promise<number>;
  /** Replaces the run's checkpoint (the state to resume from). */
  saveCheckpoint(lease: RunLease, state: unknown): Promise<void>;
  /** Replaces how the run was started (workspace, options), so another process can rebuild it. */
  saveSettings(lease: RunLease, settings: unknown): Promise<void>;
  updateRun(lease: RunLease, change: { status?: RunStatus; answer?: string | null }): Promise<void>;
  /**
   * Leaves decisions for a run paused for approval, for whichever process resumes it; false when the
   * run is not waiting for approval (or already has decisions).
   */
  submitDecisions(runId: string, decisions: ApprovalDecisions): Promise<boolean>;
  /** Takes the run's submitted decisions away (the resumer applies them); undefined when there are none. */
  takeDecisions(lease: RunLease): Promise<ApprovalDecisions | undefined>;
  /** Runs a worker may take over: running with an expired (or no) lease, or paused with decisions submitted and free. Oldest first. */
  resumableRuns(limit?: number): Promise<RunRecord[]>;
  /** Events of a run with a sequence number above `afterSeq`, oldest first. */
  events(runId: string, afterSeq?: number, limit?: number): Promise<LoggedEvent[]>;
  loadCheckpoint(runId: string): Promise<unknown>;
  loadSettings(runId: string): Promise<unknown>;
  /**
   * Calls `listener` with a run's id soon after that run changed (an event, a status, a lease), in this
   * process or another. Returns the function that stops listening.
   */
  subscribe(listener: (runId: string) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
