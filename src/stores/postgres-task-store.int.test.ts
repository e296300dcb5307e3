import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { TaskBoard } from "../planning/tasks/task-board.js";
import type { TaskBoardChange } from "../planning/tasks/task.js";
import { PostgresTaskStore } from "./postgres-task-store.js";
import {
  dependentTasks,
  drainWithKilledWorkers,
  killedWorkersCheck,
  runWorkerProcesses,
  uniqueBoardId,
} from "./test-support/shared-board-workload.js";
import { freshSchema } from "./test-support/fresh-schema.js";
import * as vitest from "vitest";
import { describeTaskStore } from "../testing.js";

// A schema of its own, so that this suite's tables (and their migrations) never meet another run's.
const schema = await freshSchema();
const pool = new pg.Pool({ connectionString: schema.url });
afterAll(async () => {
  await pool.end();
  await schema.drop();
});

describeTaskStore("postgres", async () => {
  const boardId = uniqueBoardId("suite");
  const store = new PostgresTaskStore({ boardId, pool });
  return {
    store,
    reopen: async () => new PostgresTaskStore({ boardId, connectionString: schema.url }),
    cleanup: () => store.deleteBoard(),
  };
}, vitest);

describe("PostgresTaskStore sharing", () => {
  it("announces every change on the board's channel to subscribers, and only that board's changes", async () => {
    const store = new PostgresTaskStore({ boardId: uniqueBoardId("notify"), pool });
    const other = new PostgresTaskStore({ boardId: uniqueBoardId("notify-other"), pool });
    const seen: TaskBoardChange[] = [];
    const unsubscribe = await store.subscribe((change) => seen.push(change));
    try {
      await store.create({ subject: "a", description: "" });
      await store.create({ subject: "b", description: "" });
      await other.create({ subject: "elsewhere", description: "" });
      await store.update("2", { addBlockedBy: ["1"] });
      await store.claimNext("ann");
      await store.remove("2");
      await store.replaceAll([]);
      await expect.poll(() => seen.length).toBe(6);
      expect(seen).toEqual([
        { boardId: store.boardId, action: "created", taskIds: ["1"] },
        { boardId: store.boardId, action: "created", taskIds: ["2"] },
        { boardId: store.boardId, action: "updated", taskIds: ["1", "2"] },
        { boardId: store.boardId, action: "claimed", taskIds: ["1"] },
        { boardId: store.boardId, action: "deleted", taskIds: ["1", "2"] },
        { boardId: store.boardId, action: "replaced", taskIds: [] },
      ]);
    } finally {
      await unsubscribe();
      await store.deleteBoard();
      await other.deleteBoard();
    }
  });

  it("announces a burst of changes from racing writers, batched into shared notifications, each change once", async () => {
    const store = new PostgresTaskStore({ boardId: uniqueBoardId("burst"), pool });
    const seen: TaskBoardChange[] = [];
    const unsubscribe = await store.subscribe((change) => seen.push(change));
    try {
      // 400 changes at once, some with long id lists, so batches must be split to fit a NOTIFY.
      await Promise.all(Array.from({ length: 200 }, () => store.create({ subject: "x".repeat(50), description: "" })));
      await Promise.all(Array.from({ length: 200 }, (_, i) => store.update(String(i + 1), { metadata: { n: i } })));
      await store.update("1", { addBlocks: Array.from({ length: 199 }, (_, i) => String(i + 2)) });
      await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(401);
      expect(seen.filter((c) => c.action === "created").flatMap((c) => c.taskIds).sort()).toEqual(Array.from({ length: 200 }, (_, i) => String(i + 1)).sort());
      expect(seen.filter((c) => c.action === "updated" && c.taskIds.length === 1)).toHaveLength(200);
      expect(seen.at(-1)?.taskIds).toHaveLength(200);
    } finally {
      await unsubscribe();
      await store.deleteBoard();
    }
  });

  it("takes a worker's step in one statement, and in a second only when a lease ran out or a task waits for that worker", async () => {
    const sent: string[] = [];
    const counting = {
      query: (config: string | { name?: string; text: string }, values?: unknown[]) => {
        if (typeof config !== "string" && config.name) sent.push(config.name);
        return pool.query(config as string, values);
      },
      connect: () => pool.connect(),
      on: (event: "error", listener: (error: Error) => void) => pool.on(event, listener),
      end: () => pool.end(),
    };
    const store = new PostgresTaskStore({ boardId: uniqueBoardId("steps"), pool: counting });
    const board = new TaskBoard({ store });
    try {
      await board.import(dependentTasks(20));
      let task = await board.claimNext("ann", { leaseMs: 60_000 });
      for (let steps = 0; task && steps < 5; steps++) task = (await board.completeAndClaim(task.lease, undefined, "ann", { leaseMs: 60_000 })).claim.task;
      const steps = sent.filter((name) => name.startsWith("stepwise-task-c"));
      expect(steps).toEqual(["stepwise-task-claim-common", ...Array<string>(5).fill("stepwise-task-complete-claim-common")]);
      sent.length = 0;
      await board.claimNext("bob", { leaseMs: 1 });
      await vitest.expect.poll(() => store.activeLeases()).toBe(1);
      await board.completeAndClaim((task as NonNullable<typeof task>).lease, undefined, "ann", { leaseMs: 60_000 });
      expect(sent.filter((name) => name.startsWith("stepwise-task-c"))).toEqual([
        "stepwise-task-claim-common",
        "stepwise-task-complete-claim-common",
        "stepwise-task-complete-claim-full",
      ]);
    } finally {
      await store.deleteBoard();
      await board.close();
    }
  });

  it("reaches the tasks a completion frees by key, however many wait, under statistics taken while none waited", async () => {
    // One connection, so that what it read can be flushed to the statistics and read back; on it, the
    // generic plans every connection settles on after a statement's fifth run.
    const single = new pg.Pool({ connectionString: schema.url, max: 1 });
    await single.query("SET plan_cache_mode = force_generic_plan");
    const board = new TaskBoard({ store: new PostgresTaskStore({ boardId: uniqueBoardId("stale"), pool: single }) });
    const waitingIndexReads = async () => {
      await single.query("SELECT pg_stat_force_next_flush()");
      const { rows } = await single.query<{ n: number }>("SELECT idx_tup_read::int AS n FROM pg_stat_user_indexes WHERE indexrelid = 'stepwise_tasks_waiting'::regclass");
      return (rows[0] as { n: number }).n;
    };
    try {
      // Statistics taken while every task was free; then 2,000 of them wait, each on the one before.
      const tasks = (waiting: boolean) =>
        Array.from({ length: 2050 }, (_, i) => ({ id: String(i + 1), subject: `task ${i + 1}`, blockedBy: waiting && i >= 50 ? [String(i)] : [] }));
      await board.import(tasks(false));
      await single.query("ANALYZE stepwise_tasks");
      await board.import(tasks(true));
      const first = (await board.claimNext("ann")) as NonNullable<Awaited<ReturnType<TaskBoard["claimNext"]>>>;
      const before = await waitingIndexReads();
      const step = await board.completeAndClaim(first.lease, undefined, "ann");
      expect(step.claim.task?.id).toBe("2");
      expect((await waitingIndexReads()) - before).toBeLessThan(10);
    } finally {
      await board.close();
      await single.end();
    }
  });

  it("lets 8 worker processes drain one board of 2,000 dependent tasks: each task once, never before its blockers, no update lost", async () => {
    const boardId = uniqueBoardId("workers");
    const sequence = `stepwise_test_${boardId.replace(/[^a-z0-9]/gi, "_")}`.toLowerCase();
    const board = new TaskBoard({ store: new PostgresTaskStore({ boardId, pool }) });
    const tasks = dependentTasks(2000);
    const journalId = "2001";
    await board.import([...tasks, { id: journalId, subject: "journal", state: "completed" }]);
    await pool.query(`CREATE SEQUENCE ${pg.escapeIdentifier(sequence)}`);
    try {
      const workers = Array.from({ length: 8 }, (_, i) => `proc-${i + 1}`);
      const reports = await runWorkerProcesses({ store: schema.url, boardId, workers, sequence, journalId });

      const final = await board.list();
      const byId = new Map(final.map((task) => [task.id, task]));
      const work = final.filter((task) => task.id !== journalId);
      expect(work).toHaveLength(2000);
      expect(work.filter((task) => task.state !== "completed")).toEqual([]);
      // Completed exactly once: each task's single completion names the worker that claimed it,
      // and the workers' own tallies add up to the board, with no task counted twice.
      expect(work.filter((task) => task.owner === null || task.metadata["completedBy"] !== task.owner)).toEqual([]);
      const completedIds = reports.flatMap((report) => Object.values(report.byWorker).flat());
      expect(completedIds).toHaveLength(2000);
      expect(new Set(completedIds).size).toBe(2000);
      expect(reports.filter((report) => report.completed > 0).length).toBeGreaterThan(1);
      // Never before its blockers: work on a task starts after every blocker's work has ended.
      const seq = (id: string, key: string) => Number(byId.get(id)?.metadata[key]);
      const early = tasks.flatMap((task) =>
        (task.blockedBy ?? []).filter((blocker) => !(seq(task.id, "startedAt") > seq(blocker, "doneAt"))).map((blocker) => `${task.id} before ${blocker}`),
      );
      expect(early).toEqual([]);
      // No update lost: 250 concurrent metadata merges into one task, from 8 processes, all kept.
      expect(Object.keys(byId.get(journalId)?.metadata ?? {})).toHaveLength(250);
    } finally {
      await pool.query(`DROP SEQUENCE IF EXISTS ${pg.escapeIdentifier(sequence)}`);
      await (board.store as PostgresTaskStore).deleteBoard();
    }
  }, 60_000);

  it("takes back the tasks of worker processes killed with kill -9 right after a claim: none stranded, each completed once", async () => {
    const boardId = uniqueBoardId("killed");
    const board = new TaskBoard({ store: new PostgresTaskStore({ boardId, pool }) });
    await board.import(dependentTasks(150));
    try {
      // Short leases so the test is quick; every wait below is for an event (a printed line, an exit).
      const outcome = await drainWithKilledWorkers({ store: schema.url, boardId, workers: 5, killed: 2, leaseMs: 400, heartbeatMs: 80 });
      expect(outcome.killed).toHaveLength(2);
      expect(outcome.survivors).toHaveLength(3);
      expect(killedWorkersCheck(outcome, await board.list())).toEqual({ tasks: 150, stranded: [], completedTwice: [], neverCompleted: [], notTakenBack: [] });
      expect(await board.activeLeases()).toBe(0);
    } finally {
      await (board.store as PostgresTaskStore).deleteBoard();
    }
  }, 90_000);
});
