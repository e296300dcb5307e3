import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { TaskBoard } from "../planning/tasks/task-board.js";
import type { TaskLease } from "../planning/tasks/task-lease.js";
import { PostgresTaskStore } from "./postgres-task-store.js";
import { EARLIER_BOARD, expectEarlierBoardWorks, POSTGRES_TASKS_V0, POSTGRES_TASKS_V1, POSTGRES_TASKS_V2, POSTGRES_TASKS_V2_COUNTS } from "./test-support/earlier-task-schemas.js";
import { freshSchema } from "./test-support/fresh-schema.js";

const schemas: { drop(): Promise<void> }[] = [];
afterAll(async () => {
  for (const schema of schemas) await schema.drop();
});

/**
 * A schema holding EARLIER_BOARD as `ddl`'s version wrote it (`counts`: what that version kept beside
 * the rows); v1 also leased task 4, under a token from its sequence.
 */
async function earlierDatabase(ddl: string, withLeases: boolean, counts = ""): Promise<{ url: string; lease?: TaskLease }> {
  const schema = await freshSchema();
  schemas.push(schema);
  const client = new pg.Client({ connectionString: schema.url });
  await client.connect();
  try {
    await client.query(ddl);
    await client.query("INSERT INTO stepwise_task_boards (board_id, next_id) VALUES ('legacy', 7)");
    for (const [id, state, owner, blocks, blockedBy, metadata] of EARLIER_BOARD) {
      await client.query(
        "INSERT INTO stepwise_tasks (board_id, id, subject, description, state, owner, blocks, blocked_by, metadata, created_at) VALUES ('legacy', $1, $2, '', $3, $4, $5, $6, $7, $8)",
        [id, `Task ${id}`, state, owner, blocks, blockedBy, JSON.stringify(metadata), new Date().toISOString()],
      );
    }
    if (counts) await client.query(counts);
    if (!withLeases) return { url: schema.url };
    // Claims of other boards had drawn tokens from the shared sequence before this one.
    await client.query("SELECT setval('stepwise_task_lease_tokens', 41)");
    const { rows } = await client.query<{ token: string; expires: Date }>(
      `UPDATE stepwise_tasks SET lease_token = nextval('stepwise_task_lease_tokens'), lease_expires_at = now() + interval '1 minute'
       WHERE board_id = 'legacy' AND id = 4 RETURNING lease_token AS token, lease_expires_at AS expires`,
    );
    const row = rows[0] as { token: string; expires: Date };
    return { url: schema.url, lease: { taskId: "4", owner: "old-worker", token: Number(row.token), expiresAt: row.expires.toISOString() } };
  } finally {
    await client.end();
  }
}

describe("a PostgreSQL task board made by an earlier version", () => {
  it("keeps working after this version opens it: v1 (leases), its live lease still fencing, tokens never handed out twice", async () => {
    const { url, lease } = await earlierDatabase(POSTGRES_TASKS_V1, true);
    const store = new PostgresTaskStore({ boardId: "legacy", connectionString: url });
    const board = new TaskBoard({ store });
    try {
      await expectEarlierBoardWorks(board, lease);
      // Task 4 imported again under its id: its claims go on above every token the sequence gave.
      await board.import([{ id: "4", subject: "again" }]);
      expect((await board.claimNext("new-worker"))?.lease.token).toBeGreaterThan((lease as TaskLease).token);
      // Other processes opening the same database find it up to date and do no schema work.
      const second = new TaskBoard({ store: new PostgresTaskStore({ boardId: "legacy", connectionString: url }) });
      expect((await second.counts()).in_progress).toBe(1);
      await second.close();
    } finally {
      await board.close();
    }
  });

  it("keeps working after this version opens it: v2 (text states under a CHECK, indexes that compare them as text)", async () => {
    const { url } = await earlierDatabase(POSTGRES_TASKS_V2, false, POSTGRES_TASKS_V2_COUNTS);
    const board = new TaskBoard({ store: new PostgresTaskStore({ boardId: "legacy", connectionString: url }) });
    const pool = new pg.Pool({ connectionString: url });
    try {
      await expectEarlierBoardWorks(board);
      const { rows } = await pool.query<{ type: string; checks: number }>(
        `SELECT format_type(atttypid, atttypmod) AS type,
           (SELECT count(*)::int FROM pg_constraint WHERE conrelid = attrelid AND contype = 'c') AS checks
         FROM pg_attribute WHERE attrelid = 'stepwise_tasks'::regclass AND attname = 'state'`,
      );
      expect(rows[0]).toEqual({ type: "stepwise_task_state", checks: 0 });
      await expect(pool.query("UPDATE stepwise_tasks SET state = 'done' WHERE id = 1")).rejects.toThrow(/invalid input value for enum stepwise_task_state: "done"/);
    } finally {
      await board.close();
      await pool.end();
    }
  });

  it("keeps working after this version opens it: v0 (before leases)", async () => {
    const { url } = await earlierDatabase(POSTGRES_TASKS_V0, false);
    const board = new TaskBoard({ store: new PostgresTaskStore({ boardId: "legacy", connectionString: url }) });
    try {
      await expectEarlierBoardWorks(board);
    } finally {
      await board.close();
    }
  });
});
