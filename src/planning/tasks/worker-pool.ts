import { linkSignals, sleep } from "../../core/abort.js";
import type { TaskBoard } from "./task-board.js";
import type { Task } from "./task.js";

/** Does one claimed task; may return metadata to merge into the task as it is completed. */
export type TaskWorker = (task: Task, ctx: { worker: string; signal: AbortSignal }) => Promise<Record<string, unknown> | void>;

export type WorkerPoolOptions = {
  board: TaskBoard;
  /** How many workers, or their names (a worker's name is the owner of the tasks it claims). */
  workers: number | string[];
  work: TaskWorker;
  /** How long an idle worker waits before looking again while other tasks are in progress. */
  idleWaitMs?: number;
  signal?: AbortSignal;
};

export type WorkerPoolReport = { completed: number; byWorker: Record<string, string[]> };

/**
 * Drains a board with several workers at once. Each worker atomically claims the lowest-numbered
 * free task, works on it and completes it, so dependencies are respected and no task runs twice;
 * with a shared store, pools in many processes can drain one board together. A worker stops when
 * it found nothing to claim and no task in progress (that could free more) twice in a row, an idle
 * wait apart; whoever completes the last running task looks again before stopping. If a task's work fails,
 * that task goes back to pending, the other workers stop after their current task, and the pool
 * rejects with the error.
 */
export async function runWorkerPool(opts: WorkerPoolOptions): Promise<WorkerPoolReport> {
  const names = typeof opts.workers === "number" ? Array.from({ length: opts.workers }, (_, i) => `worker-${i + 1}`) : opts.workers;
  if (names.length === 0 || new Set(names).size !== names.length) throw new Error("runWorkerPool needs at least one worker, each with a distinct name.");
  // Fires when the caller aborts (already, or later) or a worker's task fails.
  const failure = new AbortController();
  const stop = linkSignals(opts.signal, failure.signal) as AbortSignal;
  const byWorker: Record<string, string[]> = Object.fromEntries(names.map((name) => [name, []]));
  const idleWaitMs = opts.idleWaitMs ?? 25;

  async function drain(worker: string): Promise<void> {
    let idleChecks = 0;
    while (!stop.aborted) {
      const task = await opts.board.claimNext(worker);
      if (!task) {
        // A claim racing ours may not have committed yet, so one empty look is not enough to stop.
        const running = (await opts.board.counts()).in_progress;
        idleChecks = running === 0 ? idleChecks + 1 : 0;
        if (idleChecks === 2) return;
        // A stop cuts the wait short; the loop's condition then ends this worker.
        await sleep(idleWaitMs, stop).catch(() => undefined);
        continue;
      }
      idleChecks = 0;
      let result: Record<string, unknown> | void;
      try {
        result = await opts.work(task, { worker, signal: stop });
      } catch (error) {
        failure.abort(error);
        await opts.board.update(task.id, { state: "pending", owner: null });
        throw error;
      }
      await opts.board.update(task.id, { state: "completed", ...(result ? { metadata: result } : {}) });
      byWorker[worker]?.push(task.id);
    }
  }

  const outcomes = await Promise.allSettled(names.map(drain));
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
  return { completed: Object.values(byWorker).reduce((sum, ids) => sum + ids.length, 0), byWorker };
}
