import { linkSignals, sleep } from "../../core/abort.js";
import type { TaskBoard } from "./task-board.js";
import { DEFAULT_LEASE_MS, leaseDuration, TaskLeaseError, type ClaimedTask, type TaskClaim, type TaskLease } from "./task-lease.js";

/**
 * Does one claimed task; may return metadata to merge into the task as it is completed. `signal`
 * fires when the pool stops or the task's lease was lost (then the task may be with another worker:
 * stop, and leave it). Writes of the worker's own to the task should pass `{ lease: ctx.lease() }`.
 */
export type TaskWorker = (
  task: ClaimedTask,
  ctx: { worker: string; signal: AbortSignal; lease: () => TaskLease },
) => Promise<Record<string, unknown> | void>;

export type WorkerPoolOptions = {
  board: TaskBoard;
  /** How many workers, or their names (a worker's name is the owner of the tasks it claims). */
  workers: number | string[];
  work: TaskWorker;
  /** How long an idle worker waits before looking again while other tasks are leased. */
  idleWaitMs?: number;
  /** How long a claim lasts unless renewed (30 s by default): how soon a dead worker's task comes back. */
  leaseMs?: number;
  /** How often a working worker renews its lease (a third of leaseMs by default). */
  heartbeatMs?: number;
  signal?: AbortSignal;
};

export type WorkerPoolReport = {
  completed: number;
  byWorker: Record<string, string[]>;
  /** Leases of other workers (dead or stalled) that this pool's claims returned to pending. */
  expired: TaskLease[];
  /** Tasks this pool's workers lost the lease on before finishing: another worker does them. */
  lost: string[];
};

/**
 * Drains a board with several workers at once. Each worker atomically claims the lowest-numbered
 * free task under a lease, renews the lease while it works, and completes the task with a write
 * fenced by that lease, so dependencies are respected and no task is completed twice; the completion
 * claims the worker's next task in the same step (one round trip on PostgreSQL). With a shared
 * store, pools in many processes can drain one board together, and a task whose worker died comes
 * back to pending when its lease runs out. A worker stops when it found nothing to claim and no task
 * held by a live lease (that could free more) twice in a row, an idle wait apart; whoever completes
 * the last running task looks again before stopping. A worker whose lease was lost abandons that task
 * and goes on. If a task's work fails, that task goes back to pending, the other workers stop after
 * their current task, and the pool rejects with the error.
 */
export async function runWorkerPool(opts: WorkerPoolOptions): Promise<WorkerPoolReport> {
  const names = typeof opts.workers === "number" ? Array.from({ length: opts.workers }, (_, i) => `worker-${i + 1}`) : opts.workers;
  if (names.length === 0 || new Set(names).size !== names.length) throw new Error("runWorkerPool needs at least one worker, each with a distinct name.");
  const leaseMs = leaseDuration(opts.leaseMs ?? DEFAULT_LEASE_MS);
  const heartbeatMs = opts.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 3));
  if (!Number.isInteger(heartbeatMs) || heartbeatMs < 1 || heartbeatMs >= leaseMs) {
    throw new Error(`runWorkerPool: heartbeatMs must be a whole number of milliseconds below leaseMs (${leaseMs}); got ${String(opts.heartbeatMs)}.`);
  }
  // Fires when the caller aborts (already, or later) or a worker's task fails.
  const failure = new AbortController();
  const stop = linkSignals(opts.signal, failure.signal) as AbortSignal;
  const byWorker: Record<string, string[]> = Object.fromEntries(names.map((name) => [name, []]));
  const report: WorkerPoolReport = { completed: 0, byWorker, expired: [], lost: [] };
  const idleWaitMs = opts.idleWaitMs ?? 25;

  async function drain(worker: string): Promise<void> {
    let idleChecks = 0;
    // The claim the last completion made with it (completeAndClaim), if any.
    let next: TaskClaim | undefined;
    try {
      while (!stop.aborted) {
        const { task, expired } = next ?? (await opts.board.claim(worker, { leaseMs }));
        next = undefined;
        report.expired.push(...expired);
        if (!task) {
          // A claim racing ours may not have committed yet, and a task just returned to pending is
          // claimable at the next look, so one empty look is not enough to stop.
          const leased = await opts.board.activeLeases();
          idleChecks = leased === 0 && expired.length === 0 ? idleChecks + 1 : 0;
          if (idleChecks === 2) return;
          // A stop cuts the wait short; the loop's condition then ends this worker.
          await sleep(idleWaitMs, stop).catch(() => undefined);
          continue;
        }
        idleChecks = 0;
        next = await workOn(worker, task);
      }
    } finally {
      // A task claimed with the last completion, just as the pool was told to stop: back to pending.
      if (next?.task) await giveBack(next.task.id, next.task.lease);
    }
  }

  async function giveBack(taskId: string, lease: TaskLease): Promise<void> {
    await opts.board.update(taskId, { state: "pending", owner: null }, { lease }).catch((error: unknown) => {
      if (!(error instanceof TaskLeaseError)) throw error;
    });
  }

  /** Works on `task` and completes it; unless the pool is stopping, the completion claims the next task too (returned). */
  async function workOn(worker: string, task: ClaimedTask): Promise<TaskClaim | undefined> {
    const held = holdLease(opts.board, task.lease, { leaseMs, heartbeatMs, signal: stop });
    let result: Record<string, unknown> | void;
    try {
      result = await opts.work(task, {
        worker,
        get signal() {
          return held.signal();
        },
        lease: held.current,
      });
    } catch (error) {
      held.release();
      if (held.lost()) return void report.lost.push(task.id);
      failure.abort(error);
      await giveBack(task.id, held.current());
      throw error;
    }
    held.release();
    const metadata = result || undefined;
    let completed = true;
    let next: TaskClaim | undefined;
    if (stop.aborted) {
      await opts.board.update(task.id, { state: "completed", ...(metadata ? { metadata } : {}) }, { lease: held.current() }).catch((error: unknown) => {
        if (!(error instanceof TaskLeaseError)) throw error;
        completed = false;
      });
    } else {
      const step = await opts.board.completeAndClaim(held.current(), metadata, worker, { leaseMs });
      completed = !(step.completed instanceof TaskLeaseError);
      next = step.claim;
    }
    if (completed) {
      byWorker[worker]?.push(task.id);
      report.completed++;
    } else report.lost.push(task.id);
    return next;
  }

  const outcomes = await Promise.allSettled(names.map(drain));
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
  return report;
}

/**
 * Renews `lease` every heartbeat until released. When a renewal is refused (the lease was lost) the
 * work's signal fires, so the work stops; any other renewal error is tried again at the next beat,
 * while the lease may still be live. The signal fires too when the pool stops (`opts.signal`): it is
 * linked by a listener removed on release, since AbortSignal.any cost more than the rest of a claim's
 * bookkeeping and kept every task's signal alive until the pool's own was collected. The signal is
 * made when the work first asks for it: most work never does, and a signal with its listener was a
 * twentieth of the pool's own CPU per claim on a PostgreSQL board.
 */
function holdLease(board: TaskBoard, lease: TaskLease, opts: { leaseMs: number; heartbeatMs: number; signal: AbortSignal }) {
  let current = lease;
  let lostBy: TaskLeaseError | undefined;
  let controller: AbortController | undefined;
  const stop = () => controller?.abort(opts.signal.reason);
  let renewing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    renewing = renewing.then(async () => {
      try {
        current = await board.renewLease(current, opts.leaseMs);
      } catch (error) {
        if (!(error instanceof TaskLeaseError)) return;
        lostBy = error;
        clearInterval(timer);
        controller?.abort(error);
      }
    });
  }, opts.heartbeatMs);
  return {
    signal: (): AbortSignal => {
      if (!controller) {
        controller = new AbortController();
        if (lostBy) controller.abort(lostBy);
        else if (opts.signal.aborted) stop();
        else opts.signal.addEventListener("abort", stop, { once: true });
      }
      return controller.signal;
    },
    current: () => current,
    lost: () => lostBy !== undefined,
    release: () => {
      clearInterval(timer);
      // No signal asked for, no listener added (removing one that never was is a no-op).
      if (controller) opts.signal.removeEventListener("abort", stop);
    },
  };
}
