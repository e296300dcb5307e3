import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { TaskBoard } from "../planning/tasks/task-board.js";
import { SqliteTaskStore } from "./sqlite-task-store.js";
import { dependentTasks, drainWithKilledWorkers, killedWorkersCheck } from "./test-support/shared-board-workload.js";

it("takes back the tasks of worker processes sharing a SQLite file that were killed with kill -9 right after a claim", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-killed-"));
  const path = join(dir, "board.db");
  const board = new TaskBoard({ store: new SqliteTaskStore({ path, boardId: "killed" }) });
  try {
    await board.import(dependentTasks(120));
    // Short leases so the test is quick; every wait is for an event (a printed line, an exit).
    const outcome = await drainWithKilledWorkers({ store: `sqlite:${path}`, boardId: "killed", workers: 4, killed: 2, leaseMs: 400, heartbeatMs: 80 });
    expect(outcome.killed).toHaveLength(2);
    expect(outcome.survivors).toHaveLength(2);
    expect(killedWorkersCheck(outcome, await board.list())).toEqual({ tasks: 120, stranded: [], completedTwice: [], neverCompleted: [], notTakenBack: [] });
    expect(await board.activeLeases()).toBe(0);
  } finally {
    await board.close();
    rmSync(dir, { recursive: true, force: true });
  }
}, 90_000);
