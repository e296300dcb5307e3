import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import { RunLeaseLostError, type RunLease, type RunStatus, type RunStore } from "../stores/run-store.js";
import type { LeaseKeeper } from "./lease-keeper.js";
import { OpenCalls, type CallInterruption } from "./open-calls.js";
import { RunLogWriter } from "./run-log-writer.js";
import { observeSession } from "./run-observer.js";
import type { SessionOutcome, StrategySession } from "./strategy-session.js";

/** How a drive ended: the run's new status, the stop reason, the answer or the calls it waits on. */
export type RunOutcome = SessionOutcome & { runId: string; status: RunStatus };

/** The run's status after a drive that stopped for this reason: one vocabulary, so the same word. */
export const STATUS_BY_STOP: { readonly [Reason in SessionOutcome["stopReason"]]: Reason & RunStatus } = {
  final: "final",
  "no-answer": "no-answer",
  "max-steps": "max-steps",
  aborted: "aborted",
  "awaiting-user": "awaiting-user",
};

/**
 * Where the drive starts: a new task, a restored checkpoint, or a paused run with decisions. `emptyLog`
 * says the run's log is known to hold no event (a queued run nobody drove yet), so no call of an
 * earlier drive can be open and the log need not be read.
 */
export type DriveStart =
  | { kind: "run"; task: string }
  | { kind: "continue"; task: string; emptyLog?: boolean }
  | { kind: "decide"; decisions: ApprovalDecisions; emptyLog?: boolean };

/**
 * Filled in by the drive: records every event so far, then saves the checkpoint. The session's
 * checkpoint-before-tools plugin calls it, so what a kill can lose is only what the tools are doing.
 */
export type CheckpointGate = { save?: () => Promise<void> };

export type DriveOptions = {
  store: RunStore;
  gate: CheckpointGate;
  lease: RunLease;
  /** Renews the lease; taken over by the drive, which stops it when it ends. */
  keeper: LeaseKeeper;
  signal: AbortSignal;
  /** Stops the session between steps, the one in flight finished and checkpointed (see `StrategySession.run`). */
  stopAfterStep?: AbortSignal;
  /** True when a stop hands the run back to be driven on elsewhere: it stays running rather than aborted. */
  handsBack?: () => boolean;
  /** Every event as recorded, in order. */
  onEvent?: (event: AgentEvent, seq: number) => void;
  /** A step that could not be recorded (the store busy): the run goes on; reported once. */
  onWarning?: (message: string) => void;
};

/**
 * Drives a session to its stop, holding the run's lease: its keeper renews it, every event is
 * recorded, the checkpoint is saved after every turn and at the end. When the lease is lost (another
 * process took the run over), the drive stops after the current step, writes nothing more, and
 * rejects with `RunLeaseLostError`. No call is left open in the log: one the drive stops in the
 * middle of, and one a killed driver left (found when the run is taken up again), gets a
 * `call-interrupted` event as its end.
 */
export async function driveSession(session: StrategySession, start: DriveStart, opts: DriveOptions): Promise<RunOutcome> {
  const { store, lease } = opts;
  const controller = new AbortController();
  let lost: RunLeaseLostError | undefined;
  const loseLease = (error: RunLeaseLostError) => {
    lost ??= error;
    controller.abort();
  };
  const stopFromOutside = () => controller.abort();
  opts.signal.addEventListener("abort", stopFromOutside, { once: true });
  if (opts.signal.aborted) controller.abort();
  opts.keeper.onLost(loseLease);

  let warned = false;
  let released = false;
  const open = new OpenCalls();
  const writer = new RunLogWriter({
    store,
    lease,
    checkpoint: () => session.checkpoint(),
    onWritten: (event, seq) => opts.onEvent?.(event, seq),
    onLeaseLost: loseLease,
    onWriteFailed: (error) => {
      if (warned) return;
      warned = true;
      const reason = error instanceof Error ? error.message : String(error);
      opts.onWarning?.(`could not record a step of the run (${reason.split("\n")[0]}); it goes on, but its log may miss events`);
    },
  });
  // A turn's end (and the run's) is a point to resume from: the write that takes it carries the checkpoint.
  const record = (event: AgentEvent) => {
    if (lost) return;
    open.note(event);
    writer.add(event, event.type === "turn-end" || event.type === "run-end");
  };
  /** Records the end of every call still open: the drive is over, or an earlier one was. */
  const interruptOpenCalls = (why: CallInterruption, time = Date.now()) => {
    for (const event of open.interrupt(why, time)) record(event);
  };
  const observer = observeSession(session, record, () => undefined);
  /** Everything the session emitted so far is written, with a checkpoint taken now when asked. */
  const settle = async (checkpoint = false) => {
    await observer.settled();
    await writer.flush(checkpoint);
    if (lost) throw lost;
  };
  opts.gate.save = () => settle(true);
  try {
    // A resumed run's log may hold calls its killed driver never ended: they end before this drive's events.
    if (start.kind !== "run" && !start.emptyLog) interruptOpenCalls("killed", await noteLoggedCalls(store, lease.runId, open));
    const waiting = session.pending();
    let outcome: SessionOutcome;
    if (waiting.length > 0 && start.kind !== "decide") outcome = { text: "", stopReason: "awaiting-user", pending: waiting };
    else if (start.kind === "decide") outcome = await session.resume(start.decisions, controller.signal, opts.stopAfterStep);
    else if (start.kind === "continue") outcome = await session.continue(start.task, controller.signal, opts.stopAfterStep);
    else outcome = await session.run(start.task, controller.signal, opts.stopAfterStep);
    await observer.settled();
    interruptOpenCalls(outcome.stopReason === "awaiting-user" ? "paused" : "stopped");
    await settle(true);
    const status = outcome.stopReason === "aborted" && opts.handsBack?.() ? "running" : STATUS_BY_STOP[outcome.stopReason];
    // The run's last write lets it go too, one commit instead of two; no renewal may follow it.
    opts.keeper.stop();
    await store.updateRun(lease, { status, answer: outcome.stopReason === "final" ? outcome.text : null, release: true });
    released = true;
    return { ...outcome, runId: lease.runId, status, ...(outcome.pending ? { pending: outcome.pending } : {}) };
  } catch (error) {
    await observer.settled();
    const cause = lost ?? error;
    if (cause instanceof RunLeaseLostError) throw cause;
    interruptOpenCalls("stopped");
    await writer.flush();
    opts.keeper.stop();
    await store.updateRun(lease, { status: "failed", release: true }).then(
      () => (released = true),
      () => undefined,
    );
    throw error;
  } finally {
    delete opts.gate.save;
    observer.off();
    opts.keeper.stop();
    opts.signal.removeEventListener("abort", stopFromOutside);
    if (!lost && !released) await store.releaseLease(lease).catch(() => undefined);
  }
}

/** Follows every logged event of the run into `open`; returns the time of the last one (0 for an empty log). */
async function noteLoggedCalls(store: RunStore, runId: string, open: OpenCalls): Promise<number> {
  let last = 0;
  for (let after = 0; ; ) {
    const page = await store.events(runId, after, LOG_PAGE);
    for (const { seq, event } of page) {
      after = seq;
      last = event.time;
      open.note(event);
    }
    // A short page is the log's end: the lease keeps anyone else from appending meanwhile.
    if (page.length < LOG_PAGE) return last;
  }
}

const LOG_PAGE = 1000;

