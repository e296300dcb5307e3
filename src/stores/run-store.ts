import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";

/**
 * Where a run stands: running, or how its last drive stopped, in the words of the agent's stopReason
 * ("final", "max-steps", "aborted", "awaiting-user"), a workflow's ("no-answer"), or "failed".
 */
export type RunStatus = "running" | "final" | "no-answer" | "failed" | "aborted" | "awaiting-user" | "max-steps";

/** Every status a run can have, in the order a person scans them. */
export const RUN_STATUSES: readonly RunStatus[] = ["running", "awaiting-user", "final", "no-answer", "max-steps", "failed", "aborted"];

/** Statuses earlier versions stored under other names, which stores still hold: read as the status they mean. */
const EARLIER_STATUS_NAMES: Readonly<Record<string, RunStatus>> = { finished: "final", "awaiting-approval": "awaiting-user" };

/** A stored status as this version names it (earlier versions' rows included). */
export function runStatusOf(stored: string): RunStatus {
  return EARLIER_STATUS_NAMES[stored] ?? (stored as RunStatus);
}

/** The names a status may be stored under: its own, and those earlier versions wrote for it (for a store's queries). */
export function storedStatusNames(statuses: readonly RunStatus[]): string[] {
  const earlier = Object.entries(EARLIER_STATUS_NAMES).filter(([, status]) => statuses.includes(status)).map(([name]) => name);
  return [...statuses, ...earlier];
}

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
  /** Who drives the run now, since when (took its lease), until when (unless renewed); null when nobody holds it. */
  lease: { holder: string; takenAt: string; expiresAt: string } | null;
  /** True when decisions wait for a driver to resume the paused run with them. */
  decided: boolean;
  /**
   * Present while the run's latest resumes failed before it could be driven (no model key, workspace or
   * tools where they were tried; a checkpoint that does not load): how many in a row, the last reason,
   * and from when a worker may try again.
   */
  resumeFailures?: ResumeFailures;
};

export type ResumeFailures = { count: number; lastError: string; retryAt: string };

/** A resume that failed, for `updateRun`: its reason, and how long workers leave the run before trying again. */
export type ResumeFailure = { error: string; retryInMs: number };

/**
 * What `updateRun` changes; a `resumeFailure` is counted on top of those before it, `null` clears the count.
 * `release` lets the run go in the same commit, as `releaseLease` does: a driver's last write.
 */
export type RunChange = { status?: RunStatus; answer?: string | null; resumeFailure?: ResumeFailure | null; release?: boolean };

export type NewRun = Pick<RunRecord, "id" | "task" | "strategy" | "model">;

/** Which runs `findRuns` reads: each given part must hold. */
export type RunQuery = {
  /** Only runs whose id starts with this, taken literally (a person types a prefix of an id). */
  idPrefix?: string;
  /** Only runs with one of these statuses. */
  status?: readonly RunStatus[];
  limit: number;
};

/** The first runs a query matched, newest first, and how many it matched in all. */
export type RunPage = { runs: RunRecord[]; total: number };

/** What one model used in one run: its logged model calls, and their tokens summed. */
export type RunModelUsage = {
  runId: string;
  /** Null for calls logged before model ids were recorded. */
  model: string | null;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** Absent when no call of this model reported it. */
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
};

export type LoggedEvent = { seq: number; event: AgentEvent };

/** A checkpoint to save: the state a resume starts from (any JSON value). */
export type RunCheckpoint = { state: unknown };

/**
 * The right to drive one run. `token` grows with every takeover: a write carrying an older token is
 * refused, so a driver that lost its lease (paused, cut off, presumed dead) can never overwrite the
 * run after another process took it over.
 */
export type RunLease = { readonly runId: string; readonly holder: string; readonly token: number };

/**
 * A run a worker claimed (`RunStore.claimRun`): the run as it was taken, its new lease, and what its
 * driver reads first, read in the same step (`saved`: a store may leave it out, and the driver then
 * reads it with loadSettings, loadCheckpoint and events).
 */
export type ClaimedRun = { run: RunRecord; lease: RunLease; saved?: SavedRun };

/** A run's settings and checkpoint as loadSettings and loadCheckpoint return them, and its last event's sequence number (0: none logged). */
export type SavedRun = { settings: unknown; checkpoint: unknown; lastSeq: number };

/** One row of a store's usage query: sums per run and model (PostgreSQL returns them as text). */
export type UsageSumsRow = {
  run_id: string;
  model: string | null;
  calls: number | string;
  input: number | string | null;
  output: number | string | null;
  cache_read: number | string | null;
  cache_write: number | string | null;
};

/** A usage row as `modelUsage` returns it; a sum no call reported stays absent. */
export function modelUsageOf(row: UsageSumsRow): RunModelUsage {
  const optional = (name: "cacheReadInputTokens" | "cacheWriteInputTokens", value: number | string | null) => (value === null ? {} : { [name]: Number(value) });
  return {
    runId: row.run_id,
    model: row.model,
    calls: Number(row.calls),
    inputTokens: Number(row.input ?? 0),
    outputTokens: Number(row.output ?? 0),
    ...optional("cacheReadInputTokens", row.cache_read),
    ...optional("cacheWriteInputTokens", row.cache_write),
  };
}

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

/** The run does not exist in this store; `where` names the store when the caller knows it. */
export class RunNotFoundError extends Error {
  override name = "RunNotFoundError";
  constructor(
    readonly runId: string,
    where = "this store",
  ) {
    super(`there is no run ${runId} in ${where}`);
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
  /** The runs `query` picks, newest first, at most `query.limit`, and how many it picks in all: the database filters and counts. */
  findRuns(query: RunQuery): Promise<RunPage>;
  /** The tokens each model used in each of these runs, summed over their logged model calls (`model-end` events). */
  modelUsage(runIds: readonly string[]): Promise<RunModelUsage[]>;
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
  /**
   * Appends the events in order (numbered 1, 2, 3… per run) and, when one is given, replaces the run's
   * checkpoint (the state to resume from), all in one commit: a driver writes a turn's events with the
   * checkpoint they lead to at once. Returns the sequence number of the last event (the run's last one
   * when `events` is empty).
   */
  appendEvents(lease: RunLease, events: readonly AgentEvent[], checkpoint?: RunCheckpoint): Promise<number>;
  /** Replaces how the run was started (workspace, options), so another process can rebuild it. */
  saveSettings(lease: RunLease, settings: unknown): Promise<void>;
  updateRun(lease: RunLease, change: RunChange): Promise<void>;
  /**
   * Leaves decisions for a run paused for approval, for whichever process resumes it; false when the
   * run is not waiting for approval (or already has decisions).
   */
  submitDecisions(runId: string, decisions: ApprovalDecisions): Promise<boolean>;
  /** Takes the run's submitted decisions away (the resumer applies them); undefined when there are none. */
  takeDecisions(lease: RunLease): Promise<ApprovalDecisions | undefined>;
  /**
   * Runs a worker may take over: running with an expired (or no) lease, or paused with decisions submitted and
   * free, and not waiting out a failed resume (`resumeFailures.retryAt`). Runs whose resumes never failed come
   * first, oldest first; then the others by when they may be tried again.
   */
  resumableRuns(limit?: number): Promise<RunRecord[]>;
  /**
   * Takes, for `holder`, one of the runs `resumableRuns` lists, the first in its order as far as the
   * claims racing it allow (runs whose resumes never failed first, oldest first), its lease in the same
   * step: of many racing claimers each gets a different run, and none waits on another. Runs named in
   * `passOver` are left (a worker taking what waits once takes each run once). Undefined when no run
   * needs a driver now.
   */
  claimRun(holder: string, ttlMs: number, passOver?: readonly string[]): Promise<ClaimedRun | undefined>;
  /** How soon a run may need a driver with nobody announcing it (a held lease runs out, a failed resume's wait ends); undefined when none will. */
  nextClaimInMs(): Promise<number | undefined>;
  /** Events of a run with a sequence number above `afterSeq`, oldest first. */
  events(runId: string, afterSeq?: number, limit?: number): Promise<LoggedEvent[]>;
  loadCheckpoint(runId: string): Promise<unknown>;
  loadSettings(runId: string): Promise<unknown>;
  /**
   * Calls `listener` with a run's id soon after that run changed (an event, a status, a lease), in this
   * process or another. Returns the function that stops listening.
   */
  subscribe(listener: (runId: string) => void): Promise<() => Promise<void>>;
  /**
   * Calls `listener` soon after a run may have become free to claim (its lease let go while it still
   * needs a driver, decisions left for it), in this process or another; an idle worker waits on it.
   */
  subscribeClaimable(listener: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
