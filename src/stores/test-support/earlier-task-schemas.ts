// The task board's tables exactly as earlier releases created them, for the tests that open such a
// database with this version: copies, never to be changed. v0 is the first release; v1 added leases.
import { expect } from "vitest";
import type { TaskBoard } from "../../planning/tasks/task-board.js";
import { TaskLeaseError, type TaskLease } from "../../planning/tasks/task-lease.js";
import { taskListPage } from "../../planning/tasks/task-list-view.js";

export const POSTGRES_TASKS_V0 = `
  CREATE TABLE IF NOT EXISTS stepwise_task_boards (
    board_id text PRIMARY KEY,
    next_id bigint NOT NULL
  );
  CREATE TABLE IF NOT EXISTS stepwise_tasks (
    board_id text NOT NULL REFERENCES stepwise_task_boards (board_id) ON DELETE CASCADE,
    id bigint NOT NULL,
    subject text NOT NULL,
    description text NOT NULL,
    state text NOT NULL CHECK (state IN ('pending', 'in_progress', 'completed')),
    owner text,
    blocks bigint[] NOT NULL DEFAULT '{}',
    blocked_by bigint[] NOT NULL DEFAULT '{}',
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at text NOT NULL,
    PRIMARY KEY (board_id, id)
  );
  CREATE INDEX IF NOT EXISTS stepwise_tasks_pending ON stepwise_tasks (board_id, id) WHERE state = 'pending';
`;

export const POSTGRES_TASKS_V1 = `${POSTGRES_TASKS_V0}
  CREATE SEQUENCE IF NOT EXISTS stepwise_task_lease_tokens;
  ALTER TABLE stepwise_tasks ADD COLUMN IF NOT EXISTS lease_token bigint NOT NULL DEFAULT 0;
  ALTER TABLE stepwise_tasks ADD COLUMN IF NOT EXISTS lease_expires_at timestamptz;
  CREATE INDEX IF NOT EXISTS stepwise_tasks_leased ON stepwise_tasks (board_id, lease_expires_at) WHERE state = 'in_progress';
`;

/**
 * v2: counts kept on the rows (open_blockers, task_count, lease_floor), one partial index per state,
 * and the state still text under v0's CHECK, which those indexes' predicates compare as text.
 * `POSTGRES_TASKS_V2_COUNTS` brings a loaded board's counts to what v2 kept them at.
 */
export const POSTGRES_TASKS_V2 = `${POSTGRES_TASKS_V0}
  ALTER TABLE stepwise_tasks ADD COLUMN lease_token bigint NOT NULL DEFAULT 0;
  ALTER TABLE stepwise_tasks ADD COLUMN lease_expires_at timestamptz;
  ALTER TABLE stepwise_tasks ADD COLUMN open_blockers integer NOT NULL DEFAULT 0;
  ALTER TABLE stepwise_task_boards ADD COLUMN task_count bigint NOT NULL DEFAULT 0;
  ALTER TABLE stepwise_task_boards ADD COLUMN lease_floor bigint NOT NULL DEFAULT 0;
  DROP INDEX stepwise_tasks_pending;
  CREATE INDEX stepwise_tasks_leased ON stepwise_tasks (board_id, lease_expires_at) WHERE state = 'in_progress';
  CREATE INDEX stepwise_tasks_completed ON stepwise_tasks (board_id, id) WHERE state = 'completed';
  CREATE INDEX stepwise_tasks_waiting ON stepwise_tasks (board_id, id) WHERE state = 'pending' AND (open_blockers > 0 OR owner IS NOT NULL);
  CREATE INDEX stepwise_tasks_assigned ON stepwise_tasks (board_id, owner, id) WHERE state = 'pending' AND open_blockers = 0 AND owner IS NOT NULL;
  CREATE INDEX stepwise_tasks_external ON stepwise_tasks (board_id, (metadata ->> 'externalId')) WHERE metadata ? 'externalId';
  CREATE INDEX stepwise_tasks_ready ON stepwise_tasks (board_id, id) WHERE state = 'pending' AND open_blockers = 0 AND owner IS NULL;
`;
export const POSTGRES_TASKS_V2_COUNTS = `
  UPDATE stepwise_tasks t SET open_blockers = (SELECT count(*) FROM unnest(t.blocked_by) AS blocker (id)
    JOIN stepwise_tasks b ON b.board_id = t.board_id AND b.id = blocker.id WHERE b.state <> 'completed');
  UPDATE stepwise_task_boards b SET task_count = (SELECT count(*) FROM stepwise_tasks t WHERE t.board_id = b.board_id);
`;

export const SQLITE_TASKS_V0 = `
  CREATE TABLE IF NOT EXISTS stepwise_task_boards (
    board_id TEXT PRIMARY KEY,
    next_id INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS stepwise_tasks (
    board_id TEXT NOT NULL,
    id INTEGER NOT NULL,
    subject TEXT NOT NULL,
    description TEXT NOT NULL,
    state TEXT NOT NULL,
    owner TEXT,
    blocks TEXT NOT NULL,
    blocked_by TEXT NOT NULL,
    metadata TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (board_id, id)
  );
`;

/**
 * A board as an earlier version left it: 1 completed; 2 free; 3 waits on 2; 4 in progress (held by
 * "old-worker" under `token` where the version had leases); 5 waits on 4; 6, imported as "PROJ-6",
 * waits on 1 and 4. Each row as [id, state, owner, blocks, blockedBy, metadata].
 */
export const EARLIER_BOARD: [number, string, string | null, number[], number[], Record<string, unknown>][] = [
  [1, "completed", "ann", [2, 6], [], {}],
  [2, "pending", null, [3], [1], {}],
  [3, "pending", null, [], [2], {}],
  [4, "in_progress", "old-worker", [5, 6], [], {}],
  [5, "pending", null, [], [4], {}],
  [6, "pending", null, [], [1, 4], { externalId: "PROJ-6" }],
];

/**
 * What must hold on EARLIER_BOARD once this version opened it: TaskList's view is the whole
 * board's, claims respect the blockers the earlier version recorded, the outside id is found, and
 * (given `oldLease`, the lease the earlier version handed out on task 4) that lease still fences.
 */
export async function expectEarlierBoardWorks(board: TaskBoard, oldLease?: TaskLease): Promise<void> {
  const tasks = await board.list();
  for (const filter of [{ limit: 50 }, { limit: 2 }, { limit: 50, ready: true }, { limit: 50, owner: "old-worker" }]) {
    expect(await board.listView(filter)).toEqual(taskListPage(tasks, filter));
  }
  expect(await board.counts()).toEqual({ pending: 4, in_progress: 1, completed: 1 });
  expect((await board.find("PROJ-6")).id).toBe("6");
  const claimed = await board.claimNext("new-worker", { leaseMs: 60_000 });
  expect(claimed?.id).toBe("2");
  if (oldLease) {
    await expect(board.update("4", { state: "completed" }, { lease: { ...oldLease, token: oldLease.token + 1 } })).rejects.toBeInstanceOf(TaskLeaseError);
    await board.update("4", { state: "completed" }, { lease: oldLease });
  } else {
    await board.update("4", { state: "completed" });
  }
  // 4 done frees 5 and 6; 3 still waits on 2, which is in progress.
  expect((await board.claimNext("new-worker", { leaseMs: 60_000 }))?.id).toBe("5");
  expect((await board.claimNext("new-worker", { leaseMs: 60_000 }))?.id).toBe("6");
  expect(await board.claimNext("new-worker", { leaseMs: 60_000 })).toBeUndefined();
  const step = await board.completeAndClaim((claimed as NonNullable<typeof claimed>).lease, { result: "ok" }, "new-worker", { leaseMs: 60_000 });
  expect(step.claim.task?.id).toBe("3");
  expect(await board.listView({ limit: 50 })).toEqual(taskListPage(await board.list(), { limit: 50 }));
}
