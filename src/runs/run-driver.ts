import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import { RunLeaseLostError, type RunLease, type RunStatus, type RunStore } from "../stores/run-store.js";
import { observeSession } from "./run-observer.js";
import type { SessionOutcome, StrategySession } from "./strategy-session.js";

/** How a drive ended: the run's new status, the stop reason, the answer or the calls it waits on. */
export type RunOutcome = SessionOutcome & { runId: string; status: RunStatus };

const STATUS_BY_STOP: Record<SessionOutcome["stopReason"], RunStatus> = {
  final: "finished",
  "no-answer": "no-answer",
  "max-steps": "max-steps",
  aborted: "aborted",
  "awaiting-approval": "awaiting-approval",
};

/** Where the drive starts: a new task, a restored checkpoint, or a paused run with decisions. */
export type DriveStart = { kind: "run"; task: string } | { kind: "continue"; task: string } | { kind: "decide"; decisions: ApprovalDecisions };

/**
 * Filled in by the drive: records every event so far, then saves the checkpoint. The session's
 * checkpoint-before-tools plugin calls it, so what a kill can lose is only what the tools are doing.
 */
export type CheckpointGate = { save?: () => Promise<void> };

export type DriveOptions = {
  store: RunStore;
  gate: CheckpointGate;
  lease: RunLease;
  leaseMs: number;
  signal: AbortSignal;
  /** Every event as recorded, in order. */
  onEvent?: (event: AgentEvent, seq: number) => void;
  /** A step that could not be recorded (the store busy): the run goes on; reported once. */
  onWarning?: (message: string) => void;
};

/**
 * Drives a session to its stop, holding the run's lease: a heartbeat renews it, every event is
 * recorded, the checkpoint is saved after every turn and at the end. When the lease is lost (another
 * process took the run over), the drive stops after the current step, writes nothing more, and
 * rejects with `RunLeaseLostError`.
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
  const heartbeat = startHeartbeat(store, lease, opts.leaseMs, loseLease);

  let warned = false;
  const record = async (event: AgentEvent) => {
    if (lost) return;
    try {
      const seq = await store.appendEvent(lease, event);
      if (event.type === "turn-end" || event.type === "run-end") await store.saveCheckpoint(lease, session.checkpoint());
      opts.onEvent?.(event, seq);
    } catch (error) {
      if (error instanceof RunLeaseLostError) return loseLease(error);
      if (warned) return;
      warned = true;
      const reason = error instanceof Error ? error.message : String(error);
      opts.onWarning?.(`could not record a step of the run (${reason.split("\n")[0]}); it goes on, but its log may miss events`);
    }
  };
  const observer = observeSession(session, record, () => undefined);
  const settle = async () => {
    await observer.settled();
    if (lost) throw lost;
  };
  opts.gate.save = async () => {
    await settle();
    await store.saveCheckpoint(lease, session.checkpoint());
  };
  try {
    const waiting = session.pending();
    let outcome: SessionOutcome;
    if (waiting.length > 0 && start.kind !== "decide") outcome = { text: "", stopReason: "awaiting-approval", pending: waiting };
    else if (start.kind === "decide") outcome = await session.resume(start.decisions, controller.signal);
    else if (start.kind === "continue") outcome = await session.continue(start.task, controller.signal);
    else outcome = await session.run(start.task, controller.signal);
    await settle();
    const status = STATUS_BY_STOP[outcome.stopReason];
    await store.saveCheckpoint(lease, session.checkpoint());
    await store.updateRun(lease, { status, answer: outcome.stopReason === "final" ? outcome.text : null });
    return { ...outcome, runId: lease.runId, status, ...(outcome.pending ? { pending: outcome.pending } : {}) };
  } catch (error) {
    await observer.settled();
    const cause = lost ?? error;
    if (cause instanceof RunLeaseLostError) throw cause;
    await store.updateRun(lease, { status: "failed" }).catch(() => undefined);
    throw error;
  } finally {
    delete opts.gate.save;
    observer.off();
    heartbeat.stop();
    opts.signal.removeEventListener("abort", stopFromOutside);
    if (!lost) await store.releaseLease(lease).catch(() => undefined);
  }
}

/**
 * Renews the lease at a third of its length. When the store says another process took the run, or
 * the lease ran out before a renewal got through (the store unreachable), the run must stop.
 */
function startHeartbeat(store: RunStore, lease: RunLease, leaseMs: number, lose: (error: RunLeaseLostError) => void): { stop(): void } {
  let validUntil = Date.now() + leaseMs;
  let renewing = false;
  const timer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    const asked = Date.now();
    store
      .renewLease(lease, leaseMs)
      .then(
        () => {
          validUntil = asked + leaseMs;
        },
        (error: unknown) => {
          if (error instanceof RunLeaseLostError) lose(error);
          else if (Date.now() >= validUntil) lose(new RunLeaseLostError(lease.runId, lease.holder, null, "its lease ran out while the store could not be reached"));
        },
      )
      .finally(() => (renewing = false));
  }, Math.max(10, Math.floor(leaseMs / 3)));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
