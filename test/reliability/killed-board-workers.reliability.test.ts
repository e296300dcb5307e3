import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TaskBoard } from "../../src/planning/tasks/task-board.js";
import { PostgresTaskStore } from "../../src/stores/postgres-task-store.js";
import { SqliteTaskStore } from "../../src/stores/sqlite-task-store.js";
import {
  dependentTasks,
  drainWithKilledWorkers,
  killedWorkersCheck,
  TEST_DATABASE_URL,
  uniqueBoardId,
} from "../../src/stores/test-support/shared-board-workload.js";
import { recordFigure } from "./figures.js";

/**
 * Worker processes drain a shared board while some are killed with SIGKILL right after a claim,
 * holding the task. Their leases run out, the survivors take the tasks back, and every task is
 * completed exactly once (counted from each process's committed completions, the killed ones' too).
 */
const LEASE = { leaseMs: 500, heartbeatMs: 100 };
const figures: string[] = [];

afterAll(() => {
  const stranded = figures.reduce((sum, line) => sum + Number(/stranded (\d+)/.exec(line)?.[1] ?? 0), 0);
  recordFigure("4-killed-workers", `stranded tasks after kill -9: ${stranded} (${figures.join("; ")})`);
});

async function drain(name: string, board: TaskBoard, store: string, boardId: string, tasks: number, workers: number, killed: number) {
  await board.import(dependentTasks(tasks));
  const outcome = await drainWithKilledWorkers({ store, boardId, workers, killed, ...LEASE });
  const check = killedWorkersCheck(outcome, await board.list());
  const onceCompleted = [...outcome.completions.values()].filter((n) => n === 1).length;
  figures.push(
    `${name}: ${tasks} tasks, ${workers} processes, ${outcome.killed.length} killed holding a claim, ` +
      `${killed - check.notTakenBack.length} taken back, ${onceCompleted} completed once, ${check.completedTwice.length} twice, stranded ${check.stranded.length}, ` +
      `${outcome.survivors.length} of ${workers - killed} surviving pools returned`,
  );
  expect(outcome.survivors).toHaveLength(workers - killed);
  expect(check).toEqual({ tasks, stranded: [], completedTwice: [], neverCompleted: [], notTakenBack: [] });
}

describe("worker processes killed with kill -9 right after a claim", () => {
  it("PostgreSQL: no task stranded, none completed twice, every surviving pool returns", async () => {
    const boardId = uniqueBoardId("killed-rel");
    const board = new TaskBoard({ store: new PostgresTaskStore({ boardId, connectionString: TEST_DATABASE_URL }) });
    try {
      await drain("postgres", board, TEST_DATABASE_URL, boardId, 600, 10, 3);
    } finally {
      await (board.store as PostgresTaskStore).deleteBoard();
      await board.close();
    }
  });

  it("SQLite across processes: the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stepwise-killed-rel-"));
    const path = join(dir, "board.db");
    const board = new TaskBoard({ store: new SqliteTaskStore({ path, boardId: "killed" }) });
    try {
      await drain("sqlite", board, `sqlite:${path}`, "killed", 300, 6, 2);
    } finally {
      await board.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
