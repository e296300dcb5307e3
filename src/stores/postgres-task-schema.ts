import type pg from "pg";
import { createSchemaIfMissing } from "./postgres-transaction.js";

// Serializes table creation when many processes start on a fresh database at once.
const SCHEMA_LOCK = 7_311_004;

/**
 * The task board's tables, written to bring any earlier schema up to date as well as to create a new
 * one, in one transaction. What each part is for:
 * - `open_blockers` counts a task's blockers that are not completed (a deleted blocker counts as
 *   done). Every change that can move it adjusts it in the same statement, by a difference, so
 *   racing changes add up; with it, "free to claim" is a column test an index can hold.
 * - One partial index per state, so that every row version lands in exactly one of them beside the
 *   primary key, and a claim, a completion or a count touches only the index it needs: `ready`
 *   (pending, unblocked, unowned: what claims take, lowest id first), `assigned` (the same, but
 *   given to an owner), `waiting` (pending and blocked, or owned), `leased` (in progress, by lease
 *   end), `completed`. The v1 `pending` index, which every claim and completion had to update, goes.
 * - Lease tokens count up per task (`lease_token + 1`) instead of coming from one sequence that
 *   every claim of every board had to call; a task created or imported again under an id that held
 *   leases before starts from the board's `lease_floor`, the highest token any removed task had, so
 *   a token is never handed out twice for one id. The v1 sequence's last value is where floors start.
 * - `task_count` is kept by every insert and delete, so counts need no pass over the board.
 * - Outside ids (`metadata.externalId`, kept by imports) are found through an index of their own.
 * - A task's state is an enum, not text under a CHECK: PostgreSQL parses and compiles a CHECK's
 *   expression again in every statement that writes the table, and a step writes it three times
 *   (about 5% of a claim's server time under `npm run bench -- --only board-claims`); an enum checks
 *   the value once, where it is parsed.
 * Data written by an earlier version is converted here: its blocker counts, task counts, floors, and
 * its text states (the indexes whose predicates compare them as text are made again).
 */
const SCHEMA = `
  DO $$ BEGIN
    CREATE TYPE stepwise_task_state AS ENUM ('pending', 'in_progress', 'completed');
  EXCEPTION WHEN duplicate_object THEN NULL;
  END $$;
  CREATE TABLE IF NOT EXISTS stepwise_task_boards (
    board_id text PRIMARY KEY,
    next_id bigint NOT NULL
  );
  CREATE TABLE IF NOT EXISTS stepwise_tasks (
    board_id text NOT NULL REFERENCES stepwise_task_boards (board_id) ON DELETE CASCADE,
    id bigint NOT NULL,
    subject text NOT NULL,
    description text NOT NULL,
    state stepwise_task_state NOT NULL,
    owner text,
    blocks bigint[] NOT NULL DEFAULT '{}',
    blocked_by bigint[] NOT NULL DEFAULT '{}',
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at text NOT NULL,
    PRIMARY KEY (board_id, id)
  );
  ALTER TABLE stepwise_tasks ADD COLUMN IF NOT EXISTS lease_token bigint NOT NULL DEFAULT 0;
  ALTER TABLE stepwise_tasks ADD COLUMN IF NOT EXISTS lease_expires_at timestamptz;

  ALTER TABLE stepwise_tasks ADD COLUMN IF NOT EXISTS open_blockers integer;
  UPDATE stepwise_tasks t SET open_blockers = (
    SELECT count(*) FROM unnest(t.blocked_by) AS blocker (id)
    JOIN stepwise_tasks b ON b.board_id = t.board_id AND b.id = blocker.id
    WHERE b.state <> 'completed')
  WHERE t.open_blockers IS NULL;
  ALTER TABLE stepwise_tasks ALTER COLUMN open_blockers SET DEFAULT 0, ALTER COLUMN open_blockers SET NOT NULL;

  ALTER TABLE stepwise_task_boards ADD COLUMN IF NOT EXISTS task_count bigint;
  UPDATE stepwise_task_boards b SET task_count = (SELECT count(*) FROM stepwise_tasks t WHERE t.board_id = b.board_id)
  WHERE b.task_count IS NULL;
  ALTER TABLE stepwise_task_boards ALTER COLUMN task_count SET DEFAULT 0, ALTER COLUMN task_count SET NOT NULL;

  ALTER TABLE stepwise_task_boards ADD COLUMN IF NOT EXISTS lease_floor bigint NOT NULL DEFAULT 0;
  DO $$ BEGIN
    IF to_regclass('stepwise_task_lease_tokens') IS NOT NULL THEN
      UPDATE stepwise_task_boards SET lease_floor = GREATEST(lease_floor, (SELECT last_value FROM stepwise_task_lease_tokens));
    END IF;
  END $$;

  DROP INDEX IF EXISTS stepwise_tasks_pending;
  DO $$ BEGIN
    IF (SELECT atttypid = 'text'::regtype FROM pg_attribute WHERE attrelid = 'stepwise_tasks'::regclass AND attname = 'state') THEN
      DROP INDEX IF EXISTS stepwise_tasks_leased, stepwise_tasks_completed, stepwise_tasks_waiting, stepwise_tasks_assigned, stepwise_tasks_ready;
      ALTER TABLE stepwise_tasks DROP CONSTRAINT IF EXISTS stepwise_tasks_state_check;
      ALTER TABLE stepwise_tasks ALTER COLUMN state TYPE stepwise_task_state USING state::stepwise_task_state;
    END IF;
  END $$;
  CREATE INDEX IF NOT EXISTS stepwise_tasks_leased ON stepwise_tasks (board_id, lease_expires_at) WHERE state = 'in_progress';
  CREATE INDEX IF NOT EXISTS stepwise_tasks_completed ON stepwise_tasks (board_id, id) WHERE state = 'completed';
  CREATE INDEX IF NOT EXISTS stepwise_tasks_waiting ON stepwise_tasks (board_id, id)
    WHERE state = 'pending' AND (open_blockers > 0 OR owner IS NOT NULL);
  CREATE INDEX IF NOT EXISTS stepwise_tasks_assigned ON stepwise_tasks (board_id, owner, id)
    WHERE state = 'pending' AND open_blockers = 0 AND owner IS NOT NULL;
  CREATE INDEX IF NOT EXISTS stepwise_tasks_external ON stepwise_tasks (board_id, (metadata ->> 'externalId'))
    WHERE metadata ? 'externalId';
  CREATE INDEX IF NOT EXISTS stepwise_tasks_ready ON stepwise_tasks (board_id, id)
    WHERE state = 'pending' AND open_blockers = 0 AND owner IS NULL;
`;
// The newest object SCHEMA creates (all of it is one transaction): when it exists, a database needs no
// schema work (which would lock live tables). An earlier version's database lacks it, and is brought up to date.
const SCHEMA_MARKER = "stepwise_task_state";

/**
 * Creates the task board's tables, or brings an earlier version's up to date, once per database.
 * Processes of an earlier version must not share a board with this one: they do not keep its counts.
 */
export function ensureTaskSchema(pool: pg.Pool): Promise<void> {
  return createSchemaIfMissing(pool, { lock: SCHEMA_LOCK, marker: SCHEMA_MARKER, ddl: SCHEMA });
}

/** Predicates of the partial indexes above, as queries repeat them so that the planner uses each index. */
export const IS_READY = "state = 'pending' AND open_blockers = 0 AND owner IS NULL";
export const IS_ASSIGNED = "state = 'pending' AND open_blockers = 0 AND owner IS NOT NULL";
export const IS_WAITING = "state = 'pending' AND (open_blockers > 0 OR owner IS NOT NULL)";
export const HAS_EXTERNAL_ID = "metadata ? 'externalId'";
