import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { MemoryTaskStore } from "./memory-task-store.js";
import { TaskBoard } from "./task-board.js";
import { TaskLeaseError, type ClaimOptions, type TaskClaim } from "./task-lease.js";
import { runWorkerPool } from "./worker-pool.js";

/** A memory store that tells each claim step to `onClaim`, so a test can act between a pool's looks. */
class WatchedStore extends MemoryTaskStore {
  onClaim: (step: TaskClaim) => void = () => undefined;
  override async claimNext(owner: string, opts?: ClaimOptions): Promise<TaskClaim> {
    const step = await super.claimNext(owner, opts);
    this.onClaim(step);
    return step;
  }
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("runWorkerPool", () => {
  it("drains a board with several workers: each task once, never before its blockers, spread over workers", async () => {
    const board = new TaskBoard();
    await board.import(
      Array.from({ length: 40 }, (_, i) => ({ id: String(i + 1), subject: `t${i + 1}`, blockedBy: i >= 4 ? [String(i - 3)] : [] })),
    );
    const started: string[] = [];
    const finished = new Set<string>();
    const report = await runWorkerPool({
      board,
      workers: 4,
      idleWaitMs: 1,
      work: async (task, { worker }) => {
        for (const blocker of task.blockedBy) expect(finished.has(blocker)).toBe(true);
        started.push(task.id);
        await tick();
        finished.add(task.id);
        return { by: worker };
      },
    });
    expect(report.completed).toBe(40);
    expect(new Set(started).size).toBe(40);
    expect(Object.values(report.byWorker).filter((ids) => ids.length > 0).length).toBeGreaterThan(1);
    const tasks = await board.list();
    expect(tasks.every((task) => task.state === "completed" && task.metadata["by"] === task.owner)).toBe(true);
  });

  it("puts a failed task back to pending and rejects with the error", async () => {
    const board = new TaskBoard();
    await board.import([{ id: "1", subject: "ok" }, { id: "2", subject: "breaks" }]);
    const run = runWorkerPool({
      board,
      workers: ["solo"],
      work: async (task) => {
        if (task.id === "2") throw new Error("disk full");
      },
    });
    await expect(run).rejects.toThrow("disk full");
    expect((await board.list()).map((task) => [task.id, task.state, task.owner])).toEqual([
      ["1", "completed", "solo"],
      ["2", "pending", null],
    ]);
  });

  it("runs agents as workers: each claimed task becomes one agent run", async () => {
    const board = new TaskBoard();
    await board.import([{ id: "1", subject: "Summarize A" }, { id: "2", subject: "Summarize B", blockedBy: ["1"] }]);
    const agents = new Map(
      ["a", "b"].map((name) => [name, new Agent({ name, model: scriptedModel([(req) => `done: ${String(req.messages.at(-1)?.content)}`, (req) => `done: ${String(req.messages.at(-1)?.content)}`]) })]),
    );
    await runWorkerPool({
      board,
      workers: ["a", "b"],
      idleWaitMs: 1,
      work: async (task, { worker }) => ({ answer: (await (agents.get(worker) as Agent).run(task.subject)).text }),
    });
    expect((await board.list()).map((task) => task.metadata["answer"])).toEqual(["done: Summarize A", "done: Summarize B"]);
  });

  it("stops early when its signal aborts", async () => {
    const board = new TaskBoard();
    await board.import(Array.from({ length: 10 }, (_, i) => ({ id: String(i + 1), subject: "t" })));
    const controller = new AbortController();
    const report = await runWorkerPool({
      board,
      workers: 1,
      signal: controller.signal,
      work: async (task) => {
        if (task.id === "3") controller.abort();
      },
    });
    expect(report.completed).toBe(3);
    expect((await board.counts()).pending).toBe(7);
  });

  it("tells the task at work that the pool stops: its signal fires with the pool's reason", async () => {
    const board = new TaskBoard();
    await board.import([{ id: "1", subject: "long" }, { id: "2", subject: "never started" }]);
    const controller = new AbortController();
    const reasons: unknown[] = [];
    const report = await runWorkerPool({
      board,
      workers: 1,
      signal: controller.signal,
      work: async (_task, { signal }) => {
        const stopped = new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        controller.abort(new Error("shutting down"));
        await stopped;
        reasons.push(signal.reason);
      },
    });
    expect(reasons).toEqual([new Error("shutting down")]);
    expect(report.completed).toBe(1);
    expect((await board.get("2"))?.state).toBe("pending");
  });

  it("runs no task when its signal was aborted before it started", async () => {
    const board = new TaskBoard();
    await board.import(Array.from({ length: 3 }, (_, i) => ({ id: String(i + 1), subject: "t" })));
    const worked: string[] = [];
    const report = await runWorkerPool({
      board,
      workers: 2,
      signal: AbortSignal.abort(),
      work: async (task) => void worked.push(task.id),
    });
    expect(worked).toEqual([]);
    expect(report.completed).toBe(0);
    expect((await board.counts()).pending).toBe(3);
  });

  it("takes back the task of a worker that died holding it, once its lease runs out, and completes each task once", async () => {
    const board = new TaskBoard();
    await board.import(Array.from({ length: 6 }, (_, i) => ({ id: String(i + 1), subject: `t${i + 1}`, blockedBy: i > 0 ? ["1"] : [] })));
    // A worker that claimed task 1 and then died: nobody renews its lease.
    const ghost = await board.claimNext("ghost", { leaseMs: 1 });
    expect(ghost?.id).toBe("1");
    const done: string[] = [];
    const report = await runWorkerPool({ board, workers: 2, idleWaitMs: 1, leaseMs: 5_000, work: async (task) => void done.push(task.id) });
    expect(done.sort()).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(report.completed).toBe(6);
    expect(report.expired).toEqual([ghost?.lease]);
    expect((await board.list()).every((task) => task.state === "completed")).toBe(true);
    await expect(board.update("1", { metadata: { late: true } }, { lease: ghost?.lease as NonNullable<typeof ghost>["lease"] })).rejects.toThrow(/ghost's lease on task 1/);
  });

  it("keeps waiting while another worker holds a live lease, and ends once that task is done", async () => {
    const store = new WatchedStore();
    const board = new TaskBoard({ store });
    await board.import([{ id: "1", subject: "held elsewhere" }, { id: "2", subject: "waits", blockedBy: ["1"] }]);
    const other = await board.claimNext("other", { leaseMs: 60_000 });
    let ended = false;
    let emptyLooks = 0;
    const finishedElsewhere = new Promise<void>((resolve) => {
      store.onClaim = (step) => {
        if (step.task || ++emptyLooks !== 5) return;
        // Five empty looks and the pool is still running: the live lease holds it.
        expect(ended).toBe(false);
        resolve(board.update("1", { state: "completed" }, { lease: other?.lease as NonNullable<typeof other>["lease"] }).then(() => undefined));
      };
    });
    const report = await runWorkerPool({ board, workers: ["solo"], idleWaitMs: 1, work: async () => undefined }).finally(() => (ended = true));
    await finishedElsewhere;
    expect(report.byWorker).toEqual({ solo: ["2"] });
  });

  /**
   * A solo pool on `board`, whose first attempt gets `reset`: the task set back to pending under the
   * worker, so that its next heartbeat is refused. Later attempts return `{ attempt }`.
   */
  function runLosingTheFirstLease(board: TaskBoard, first: (ctx: { signal: AbortSignal }, reset: () => Promise<unknown>) => Promise<void>) {
    let attempts = 0;
    return runWorkerPool({
      board,
      workers: ["solo"],
      idleWaitMs: 1,
      leaseMs: 60_000,
      heartbeatMs: 1,
      work: async (task, ctx) => {
        if (++attempts > 1) return { attempt: attempts };
        await first(ctx, () => board.update(task.id, { state: "pending", owner: null }));
      },
    });
  }

  it("abandons a task whose lease was lost (the heartbeat is refused), then does it again under a new claim", async () => {
    const board = new TaskBoard();
    await board.import([{ id: "1", subject: "taken away once" }]);
    const report = await runLosingTheFirstLease(board, async ({ signal }, reset) => {
      await reset();
      await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true }));
    });
    expect(report).toMatchObject({ completed: 1, lost: ["1"], byWorker: { solo: ["1"] } });
    expect(await board.get("1")).toMatchObject({ state: "completed", metadata: { attempt: 2 } });
  });

  it("gives work that asks for its signal only after the lease was lost a signal already fired, with the refusal as its reason", async () => {
    const board = new TaskBoard();
    await board.import([{ id: "1", subject: "taken away before the work looks" }]);
    // Tells when a heartbeat was refused.
    let refused = () => {};
    const refusal = new Promise<void>((resolve) => (refused = resolve));
    const renew = board.renewLease.bind(board);
    board.renewLease = (...args) => renew(...args).catch((error: unknown) => (refused(), Promise.reject(error)));
    const reasons: unknown[] = [];
    const report = await runLosingTheFirstLease(board, async (ctx, reset) => {
      await reset();
      await refusal;
      // The pool hears of the refusal once the promise jobs queued with it have run.
      await new Promise((resolve) => setImmediate(resolve));
      reasons.push(ctx.signal.aborted && ctx.signal.reason);
    });
    expect(reasons).toEqual([expect.any(TaskLeaseError)]);
    expect(report).toMatchObject({ completed: 1, lost: ["1"] });
  });

  it("refuses a heartbeat that is not shorter than the lease", async () => {
    const board = new TaskBoard();
    await expect(runWorkerPool({ board, workers: 1, leaseMs: 100, heartbeatMs: 100, work: async () => undefined })).rejects.toThrow(/heartbeatMs must be .* below leaseMs \(100\)/);
  });
});
