import pg from "pg";
import { applyChange, blockerGraph, checkReservedId, idRange, normalizeImport, removeTask, sortIds, unknownTaskError } from "../planning/tasks/task-graph.js";
import { leaseDuration, TaskLeaseError, type ClaimedTask, type ClaimOptions, type FencedWrite, type TaskClaim, type TaskLease } from "../planning/tasks/task-lease.js";
import type { TaskStore, TaskStoreState } from "../planning/tasks/task-store.js";
import { countByState, isTaskId, newTask, TaskRuleError, type Task, type TaskBoardChange, type TaskChange, type TaskDraft, type TaskImport, type TaskState } from "../planning/tasks/task.js";
import { createSchemaIfMissing } from "./postgres-transaction.js";

type TaskRow = {
  id: string;
  subject: string;
  description: string;
  state: string;
  owner: string | null;
  blocks: string[];
  blocked_by: string[];
  metadata: Record<string, unknown>;
  created_at: string;
};

/** A locked row, with what a fenced write checks. */
type LockedRow = TaskRow & { lease_token: string; lease_live: boolean | null; db_now: Date };

/** A task row as row_to_json writes it: bigint ids as JSON numbers. */
type JsonTaskRow = Omit<TaskRow, "id" | "blocks" | "blocked_by"> & { id: number; blocks: number[]; blocked_by: number[] };

type UpdateRow = { task: JsonTaskRow | null; found: boolean; db_now: Date };

type ClaimRow = {
  claimed: (JsonTaskRow & { lease_token: number; expires_ms: number }) | null;
  expired: { taskId: string; owner: string | null; token: number; expiresMs: number }[];
  released: string[] | null;
};

export type PostgresTaskStoreOptions = {
  /** Which board of the shared database; letters, digits, "_", "-", ".", ":" (at most 48). */
  boardId: string;
  /** A pool to share with the rest of the application; otherwise one is made from `connectionString` (or the PG* variables). */
  pool?: pg.Pool;
  connectionString?: string;
};

export type TaskBoardSubscription = {
  /**
   * Told when the subscription stops working or a change cannot be delivered: the listening
   * connection broke (it is released and no further changes arrive; subscribe again), a
   * notification was not valid JSON, or `listener` threw. Without it such errors are dropped, so a
   * listener's bug never takes the process down.
   */
  onError?: (error: Error) => void;
};

const BOARD_ID = /^[A-Za-z0-9_.:-]{1,48}$/;
// How long committed changes wait to share one NOTIFY.
const NOTIFY_BATCH_MS = 10;
// A NOTIFY payload must stay under 8,000 bytes.
const MAX_PAYLOAD = 7_500;
// Deadlock and serialization failures roll the whole change back, so it is safe to run it again.
const RETRYABLE = new Set(["40P01", "40001"]);
const ATTEMPTS = 3;
// Serializes table creation when many processes start on a fresh database at once.
const SCHEMA_LOCK = 7_311_004;
const SCHEMA = `
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
  -- Leases: the claim that last held the task (numbered from one sequence, so never reused) and,
  -- while that lease is live, when it ends by the database's clock.
  CREATE SEQUENCE IF NOT EXISTS stepwise_task_lease_tokens;
  ALTER TABLE stepwise_tasks ADD COLUMN IF NOT EXISTS lease_token bigint NOT NULL DEFAULT 0;
  ALTER TABLE stepwise_tasks ADD COLUMN IF NOT EXISTS lease_expires_at timestamptz;
  CREATE INDEX IF NOT EXISTS stepwise_tasks_leased ON stepwise_tasks (board_id, lease_expires_at) WHERE state = 'in_progress';
`;
// The last object SCHEMA creates: when it exists, a database needs no schema work (which would lock live tables).
const SCHEMA_MARKER = "stepwise_tasks_leased";

const COLUMNS = "id, subject, description, state, owner, blocks, blocked_by, metadata, created_at";

/** A timestamptz as milliseconds since 1970, a JSON number. */
const EPOCH_MS = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

// Whether task t waits on a task not yet completed (a deleted blocker counts as done): one lookup by
// primary key per blocker. Written so, the planner cannot turn it into a join over the whole board,
// which it would when its statistics still say a board just filled is small. $1 is the board.
const OPEN_BLOCKERS = `EXISTS (
  SELECT 1 FROM unnest(t.blocked_by) AS blocker (id)
  WHERE (SELECT b.state FROM stepwise_tasks b WHERE b.board_id = $1 AND b.id = blocker.id) <> 'completed')`;

// One statement, so one atomic step by one clock (now() is the statement's start): lock the lowest
// free row, a pending one or one whose lease expired (skipping rows another claimer holds), return
// every other expired task to pending, claim the chosen row under a new lease, and announce both on
// commit. Rows are reached by key (= ANY, = (subquery)), never by a join the planner could turn
// into a scan of the board. $1 board, $2 owner, $3 lease in ms.
const CLAIM = `
  WITH pending_pick AS (
    SELECT t.id FROM stepwise_tasks t
    WHERE t.board_id = $1 AND t.state = 'pending' AND (t.owner IS NULL OR t.owner = $2) AND NOT ${OPEN_BLOCKERS}
    ORDER BY t.id LIMIT 1
    FOR UPDATE OF t SKIP LOCKED
  ), expired AS (
    SELECT t.id, t.owner, t.lease_token, t.lease_expires_at, NOT ${OPEN_BLOCKERS} AS free FROM stepwise_tasks t
    WHERE t.board_id = $1 AND t.state = 'in_progress' AND t.lease_expires_at <= now()
    FOR UPDATE OF t SKIP LOCKED
  ), picked AS (
    SELECT id FROM (SELECT id FROM pending_pick UNION ALL SELECT id FROM expired WHERE free) p ORDER BY id LIMIT 1
  ), released AS (
    UPDATE stepwise_tasks t SET state = 'pending', owner = NULL, lease_expires_at = NULL
    -- The lease conditions again (true of every expired row, which is locked) so the row is found
    -- through the lease index, never by a scan of the board.
    WHERE t.board_id = $1 AND t.state = 'in_progress' AND t.lease_expires_at <= now()
      AND t.id = ANY (ARRAY (SELECT id FROM expired)) AND t.id IS DISTINCT FROM (SELECT id FROM picked)
    RETURNING t.id
  ), claimed AS (
    UPDATE stepwise_tasks t SET state = 'in_progress', owner = $2, lease_token = nextval('stepwise_task_lease_tokens'),
      lease_expires_at = now() + $3 * interval '1 millisecond'
    WHERE t.board_id = $1 AND t.id = (SELECT id FROM picked)
    RETURNING t.${COLUMNS.split(", ").join(", t.")}, t.lease_token, ${EPOCH_MS("t.lease_expires_at")} AS expires_ms
  )
  SELECT
    (SELECT row_to_json(c) FROM claimed c) AS claimed,
    -- Every expired lease ended here: its task was either released or claimed again.
    (SELECT coalesce(json_agg(json_build_object('taskId', id::text, 'owner', owner, 'token', lease_token,
       'expiresMs', ${EPOCH_MS("lease_expires_at")}) ORDER BY id), '[]') FROM expired) AS expired,
    (SELECT json_agg(id::text ORDER BY id) FROM released) AS released`;

const UPDATE_ONE = `
  WITH changed AS (
    UPDATE stepwise_tasks t SET
      subject = coalesce($3, t.subject),
      description = coalesce($4, t.description),
      state = coalesce($5, t.state),
      owner = CASE WHEN $6::boolean THEN $7 ELSE t.owner END,
      metadata = (t.metadata || $8::jsonb) - $9::text[],
      lease_expires_at = CASE WHEN coalesce($5, t.state) = 'in_progress' THEN t.lease_expires_at END
    WHERE t.board_id = $1 AND t.id = $2
      AND ($10::bigint IS NULL OR (t.state = 'in_progress' AND t.lease_token = $10 AND t.lease_expires_at > now()))
    RETURNING t.${COLUMNS.split(", ").join(", t.")}
  )
  SELECT
    (SELECT row_to_json(c) FROM changed c) AS task,
    EXISTS (SELECT 1 FROM stepwise_tasks WHERE board_id = $1 AND id = $2) AS found,
    now() AS db_now`;

/**
 * One task board shared through PostgreSQL by agents in many processes and machines. Many boards
 * share one schema, keyed by board id; tables are created if missing. Each change is one
 * transaction, claims use FOR UPDATE SKIP LOCKED, and every change is announced with NOTIFY on the
 * board's channel (see `subscribe`).
 *
 * Lock order, which keeps changes from deadlocking: the board row first, then task rows in id order.
 * A change that touches more than one task holds the board row; one that touches a single task
 * (plain update, claim) holds only that row and waits on nothing after taking it.
 */
export class PostgresTaskStore implements TaskStore {
  readonly boardId: string;
  /** The LISTEN/NOTIFY channel that announces this board's changes. */
  readonly channel: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  #ready: Promise<void> | undefined;
  #closing: Promise<void> | undefined;
  /** Changes of transactions still open, by connection. */
  readonly #uncommitted = new Map<pg.PoolClient, TaskBoardChange[]>();
  /** Committed changes waiting for the next NOTIFY. */
  readonly #outbox: TaskBoardChange[] = [];
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(opts: PostgresTaskStoreOptions) {
    if (!BOARD_ID.test(opts.boardId)) {
      throw new Error(`Board id "${opts.boardId}" is not accepted: use 1-48 letters, digits, "_", "-", "." or ":".`);
    }
    this.boardId = opts.boardId;
    this.channel = `stepwise_tasks:${opts.boardId}`;
    this.#pool = opts.pool ?? new pg.Pool(opts.connectionString ? { connectionString: opts.connectionString } : {});
    this.#ownsPool = !opts.pool;
    // pg emits 'error' when an idle connection drops (a server restart, say), and an unheard 'error'
    // ends the process. The pool has already discarded that connection; the next query opens another.
    if (this.#ownsPool) this.#pool.on("error", () => undefined);
  }

  async list(): Promise<Task[]> {
    await this.#init();
    const { rows } = await this.#pool.query<TaskRow>(`SELECT ${COLUMNS} FROM stepwise_tasks WHERE board_id = $1 ORDER BY id`, [this.boardId]);
    return rows.map(fromRow);
  }

  async get(id: string): Promise<Task | undefined> {
    if (!isTaskId(id)) return undefined;
    await this.#init();
    const { rows } = await this.#pool.query<TaskRow>(`SELECT ${COLUMNS} FROM stepwise_tasks WHERE board_id = $1 AND id = $2`, [this.boardId, id]);
    return rows[0] && fromRow(rows[0]);
  }

  async counts(): Promise<Record<TaskState, number>> {
    await this.#init();
    const { rows } = await this.#pool.query<{ state: TaskState; n: number }>(
      "SELECT state, count(*)::int AS n FROM stepwise_tasks WHERE board_id = $1 GROUP BY state",
      [this.boardId],
    );
    const counts = countByState([]);
    for (const row of rows) counts[row.state] = row.n;
    return counts;
  }

  async create(draft: TaskDraft, opts: { id?: string } = {}): Promise<Task> {
    return this.#transaction(async (client) => {
      const id = opts.id ?? (await this.#takeIds(client, 1))[0];
      if (opts.id !== undefined) {
        // The board's next id only grows, and the task row is ours to insert: no lock needed to check.
        const { rows } = await client.query<{ next_id: string; taken: boolean }>(
          "SELECT next_id, EXISTS (SELECT 1 FROM stepwise_tasks WHERE board_id = $1 AND id = $2) AS taken FROM stepwise_task_boards WHERE board_id = $1",
          [this.boardId, isTaskId(opts.id) ? opts.id : "0"],
        );
        checkReservedId(opts.id, Number(rows[0]?.next_id ?? 1), rows[0]?.taken ?? false);
      }
      const task = newTask(id as string, draft);
      await insertTasks(client, this.boardId, [task]);
      await this.#notify(client, "created", [task.id]);
      return task;
    });
  }

  async reserveIds(count: number): Promise<string[]> {
    idRange(1, count);
    return this.#transaction((client) => this.#takeIds(client, count));
  }

  /** Counts the board's next id up by `count`, returning the ids passed. */
  async #takeIds(client: pg.PoolClient, count: number): Promise<string[]> {
    const { rows } = await client.query<{ first: string }>(
      "UPDATE stepwise_task_boards SET next_id = next_id + $2 WHERE board_id = $1 RETURNING (next_id - $2)::text AS first",
      [this.boardId, count],
    );
    return idRange(Number((rows[0] as { first: string }).first), count);
  }

  async update(id: string, change: TaskChange, opts: FencedWrite = {}): Promise<Task> {
    const named = [...(change.addBlocks ?? []), ...(change.addBlockedBy ?? [])];
    if (named.length === 0) return this.#updateOne(id, change, opts);
    return this.#transaction(async (client) => {
      // Edge changes take the board lock so two of them can never close a cycle together.
      if (named.length > 0) await this.#lockBoard(client);
      const { tasks, rows } = await this.#lockTasks(client, [id, ...named]);
      if (!tasks.has(id)) throw unknownTaskError(id, await this.#ids(client));
      if (opts.lease) checkFence(rows.get(id) as LockedRow, opts.lease);
      const graph = named.length > 0 ? await this.#graph(client) : blockerGraph(tasks.values());
      const changed = applyChange(tasks, graph, id, change);
      for (const changedId of changed) await saveTask(client, this.boardId, tasks.get(changedId) as Task);
      await this.#notify(client, "updated", changed);
      return tasks.get(id) as Task;
    });
  }

  /**
   * A change that adds no edge touches one row, so it is one statement (one round trip, no explicit
   * transaction): check the fence, apply the change as applyChange would (fields replaced, metadata
   * merged with null deleting a key, the lease dropped once not in progress), and announce it.
   */
  async #updateOne(id: string, change: TaskChange, opts: FencedWrite): Promise<Task> {
    await this.#init();
    const patch = Object.entries(change.metadata ?? {});
    const values = [
      this.boardId,
      isTaskId(id) ? id : "0",
      change.subject ?? null,
      change.description ?? null,
      change.state ?? null,
      change.owner !== undefined,
      change.owner ?? null,
      JSON.stringify(Object.fromEntries(patch.filter(([, value]) => value !== null))),
      patch.filter(([, value]) => value === null).map(([key]) => key),
      opts.lease?.token ?? null,
    ];
    const { rows } = await retryConflicts(() => this.#pool.query<UpdateRow>({ name: "stepwise-task-update", text: UPDATE_ONE, values }));
    const row = rows[0] as UpdateRow;
    if (row.task) {
      this.#announce({ boardId: this.boardId, action: "updated", taskIds: [String(row.task.id)] });
      return fromJsonRow(row.task);
    }
    // No row changed. Without a lease to check, the task was deleted by a writer this update waited
    // on; `found` reads the statement's snapshot, from before that delete, so it cannot tell.
    if (!row.found || !opts.lease) throw unknownTaskError(id, await this.#allIds());
    throw new TaskLeaseError(opts.lease, row.db_now.toISOString());
  }

  async remove(id: string): Promise<void> {
    await this.#transaction(async (client) => {
      await this.#lockBoard(client);
      // Edges change only under the board lock, so these neighbours stay put until we commit; locking
      // them with the task in one ordered step keeps the id order (locking the task first would not).
      const edges = await this.#neighbours(client, id);
      if (!edges) throw unknownTaskError(id, await this.#ids(client));
      const { tasks } = await this.#lockTasks(client, [id, ...edges]);
      const neighbours = removeTask(tasks, id);
      await client.query("DELETE FROM stepwise_tasks WHERE board_id = $1 AND id = $2", [this.boardId, id]);
      for (const neighbour of neighbours) await saveTask(client, this.boardId, tasks.get(neighbour) as Task);
      await this.#notify(client, "deleted", [id, ...neighbours]);
    });
  }

  async claimNext(owner: string, opts: ClaimOptions = {}): Promise<TaskClaim> {
    const leaseMs = leaseDuration(opts.leaseMs);
    await this.#init();
    const { rows } = await retryConflicts(() =>
      this.#pool.query<ClaimRow>({ name: "stepwise-task-claim", text: CLAIM, values: [this.boardId, owner, leaseMs] }),
    );
    const row = rows[0] as ClaimRow;
    if (row.released) this.#announce({ boardId: this.boardId, action: "released", taskIds: row.released });
    if (row.claimed) this.#announce({ boardId: this.boardId, action: "claimed", taskIds: [String(row.claimed.id)] });
    const expired = row.expired.map((lease) => ({ taskId: lease.taskId, owner: lease.owner ?? "", token: lease.token, expiresAt: isoTime(lease.expiresMs) }));
    return { task: row.claimed ? claimedTask(row.claimed) : undefined, expired };
  }

  async renewLease(lease: TaskLease, leaseMs?: number): Promise<TaskLease> {
    const ms = leaseDuration(leaseMs);
    await this.#init();
    const { rows } = await this.#pool.query<{ expires_ms: number | null; db_now: Date }>(
      `WITH renewed AS (
         UPDATE stepwise_tasks SET lease_expires_at = now() + $4 * interval '1 millisecond'
         WHERE board_id = $1 AND id = $2 AND state = 'in_progress' AND lease_token = $3 AND lease_expires_at > now()
         RETURNING lease_expires_at)
       SELECT (SELECT ${EPOCH_MS("lease_expires_at")} FROM renewed) AS expires_ms, now() AS db_now`,
      [this.boardId, isTaskId(lease.taskId) ? lease.taskId : "0", lease.token, ms],
    );
    const row = rows[0] as { expires_ms: number | null; db_now: Date };
    if (row.expires_ms === null) throw new TaskLeaseError(lease, row.db_now.toISOString());
    return { ...lease, expiresAt: isoTime(row.expires_ms) };
  }

  async activeLeases(): Promise<number> {
    await this.#init();
    const { rows } = await this.#pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM stepwise_tasks WHERE board_id = $1 AND state = 'in_progress' AND lease_expires_at > now()",
      [this.boardId],
    );
    return rows[0]?.n ?? 0;
  }

  async replaceAll(tasks: readonly TaskImport[]): Promise<Task[]> {
    return this.#replace(tasks);
  }

  saveState(): TaskStoreState {
    return { kind: "reference", store: "postgres", boardId: this.boardId };
  }

  /** A saved reference must name this board (the tasks themselves live in the database). */
  loadState(state: TaskStoreState): void {
    if (state.kind === "snapshot") {
      throw new TaskRuleError("This saved board holds its tasks (a memory board); import them with TaskBoard.import instead.");
    }
    if (state.boardId !== this.boardId) {
      throw new TaskRuleError(`This saved board refers to board "${state.boardId}", but this store is open on board "${this.boardId}".`);
    }
  }

  /**
   * Calls `listener` with every change to this board made by any process, as PostgreSQL delivers
   * them (after commit). Holds one connection until the returned function is called (or until that
   * connection breaks, which `onError` hears of).
   */
  async subscribe(listener: (change: TaskBoardChange) => void, opts: TaskBoardSubscription = {}): Promise<() => Promise<void>> {
    await this.#init();
    const client = await this.#pool.connect();
    const report = (error: unknown) => opts.onError?.(toError(error));
    let released = false;
    const detach = () => {
      client.off("notification", onNotification);
      client.off("error", onConnectionError);
    };
    // Runs inside pg's own event dispatch: nothing may escape from here.
    const onNotification = (message: pg.Notification) => {
      if (message.channel !== this.channel || !message.payload) return;
      let changes: TaskBoardChange[];
      try {
        const parsed = JSON.parse(message.payload) as TaskBoardChange | TaskBoardChange[];
        changes = Array.isArray(parsed) ? parsed : [parsed];
      } catch (error) {
        return report(error);
      }
      for (const change of changes) {
        try {
          listener(change);
        } catch (error) {
          report(error);
        }
      }
    };
    const onConnectionError = (error: Error) => {
      if (released) return;
      released = true;
      detach();
      // Passing the error destroys the connection instead of returning it to the pool.
      client.release(error);
      report(new Error(`The subscription to board "${this.boardId}" ended because its connection broke: ${error.message}`, { cause: error }));
    };
    client.on("error", onConnectionError);
    client.on("notification", onNotification);
    try {
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`);
    } catch (error) {
      if (!released) {
        released = true;
        detach();
        client.release(toError(error));
      }
      throw error;
    }
    return async () => {
      if (released) return;
      released = true;
      client.off("notification", onNotification);
      try {
        await client.query(`UNLISTEN ${client.escapeIdentifier(this.channel)}`);
        client.release();
      } catch (error) {
        client.release(toError(error));
        throw error;
      } finally {
        client.off("error", onConnectionError);
      }
    };
  }

  /** Deletes this board and all its tasks from the database. */
  async deleteBoard(): Promise<void> {
    await this.#init();
    await this.#pool.query("DELETE FROM stepwise_task_boards WHERE board_id = $1", [this.boardId]);
    this.#ready = undefined;
  }

  /** Sends the changes not yet announced, then ends the store's own pool (a shared pool stays open); a second call is harmless. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#flushTimer) clearTimeout(this.#flushTimer);
      await this.#flush();
      if (this.#ownsPool) await this.#pool.end();
    })();
    return this.#closing;
  }

  #init(): Promise<void> {
    this.#ready ??= this.#open().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  async #open(): Promise<void> {
    // CREATE INDEX IF NOT EXISTS share-locks the tasks table even when the index is there, which
    // would stall (and, held while waiting on a board row, deadlock) the writers of a live board.
    await createSchemaIfMissing(this.#pool, { lock: SCHEMA_LOCK, marker: SCHEMA_MARKER, ddl: SCHEMA });
    // A statement of its own: when another process is counting this board's row up, we wait for it
    // holding no lock that process needs.
    await this.#pool.query("INSERT INTO stepwise_task_boards (board_id, next_id) VALUES ($1, 1) ON CONFLICT DO NOTHING", [this.boardId]);
  }


  async #transaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    await this.#init();
    return retryConflicts(() => this.#attempt(fn));
  }

  async #attempt<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    const changes: TaskBoardChange[] = [];
    this.#uncommitted.set(client, changes);
    try {
      await client.query("BEGIN");
      const result = await fn(client);
      await client.query("COMMIT");
      for (const change of changes) this.#announce(change);
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      this.#uncommitted.delete(client);
      client.release();
    }
  }

  async #replace(imported: readonly TaskImport[]): Promise<Task[]> {
    return this.#transaction(async (client) => {
      const floor = await this.#lockBoard(client);
      const tasks = normalizeImport(imported, new Date().toISOString(), floor);
      await client.query("DELETE FROM stepwise_tasks WHERE board_id = $1", [this.boardId]);
      await insertTasks(client, this.boardId, tasks);
      const highest = tasks.reduce((max, task) => Math.max(max, Number(task.id)), 0);
      await client.query("UPDATE stepwise_task_boards SET next_id = GREATEST(next_id, $2) WHERE board_id = $1", [this.boardId, highest + 1]);
      await this.#notify(client, "replaced", []);
      return tasks;
    });
  }

  /** Locks the board row; returns the id the next created task would get. */
  async #lockBoard(client: pg.PoolClient): Promise<number> {
    const { rows } = await client.query<{ next_id: string }>("SELECT next_id FROM stepwise_task_boards WHERE board_id = $1 FOR UPDATE", [this.boardId]);
    return Number(rows[0]?.next_id ?? 1);
  }

  /** Locks the named tasks that exist, in id order so two transactions never deadlock. */
  async #lockTasks(client: pg.PoolClient, ids: readonly string[]): Promise<{ tasks: Map<string, Task>; rows: Map<string, LockedRow> }> {
    const { rows } = await client.query<LockedRow>(
      `SELECT ${COLUMNS}, lease_token, lease_expires_at > now() AS lease_live, now() AS db_now
       FROM stepwise_tasks WHERE board_id = $1 AND id = ANY ($2::bigint[]) ORDER BY id FOR UPDATE`,
      [this.boardId, [...new Set(ids.filter(isTaskId))]],
    );
    return { tasks: new Map(rows.map((row) => [row.id, fromRow(row)])), rows: new Map(rows.map((row) => [row.id, row])) };
  }

  /** The ids `id` blocks or waits on, or undefined when there is no such task. */
  async #neighbours(client: pg.PoolClient, id: string): Promise<string[] | undefined> {
    if (!isTaskId(id)) return undefined;
    const { rows } = await client.query<{ ids: string[] }>(
      "SELECT blocks || blocked_by AS ids FROM stepwise_tasks WHERE board_id = $1 AND id = $2",
      [this.boardId, id],
    );
    return rows[0]?.ids;
  }

  async #graph(client: pg.PoolClient): Promise<Map<string, string[]>> {
    const { rows } = await client.query<{ id: string; blocked_by: string[] }>(
      "SELECT id, blocked_by FROM stepwise_tasks WHERE board_id = $1",
      [this.boardId],
    );
    return new Map(rows.map((row) => [row.id, row.blocked_by]));
  }

  async #allIds(): Promise<string[]> {
    const { rows } = await this.#pool.query<{ id: string }>("SELECT id FROM stepwise_tasks WHERE board_id = $1", [this.boardId]);
    return rows.map((row) => row.id);
  }

  async #ids(client: pg.PoolClient): Promise<string[]> {
    const { rows } = await client.query<{ id: string }>("SELECT id FROM stepwise_tasks WHERE board_id = $1", [this.boardId]);
    return rows.map((row) => row.id);
  }

  /** Records a change of the transaction on `client`; it is announced once that transaction commits. */
  async #notify(client: pg.PoolClient, action: TaskBoardChange["action"], taskIds: string[]): Promise<void> {
    this.#uncommitted.get(client)?.push({ boardId: this.boardId, action, taskIds: sortIds(taskIds) });
  }

  /**
   * Queues a committed change for the next NOTIFY. Sending a notification in the writing transaction
   * would make every commit wait for the database-wide lock NOTIFY holds through its commit (and
   * fsync), which serialized all writers; batched, one NOTIFY (its own short transaction) carries
   * every change of the last few milliseconds, in commit order.
   */
  #announce(change: TaskBoardChange): void {
    this.#outbox.push(change);
    this.#flushTimer ??= setTimeout(() => void this.#flush(), NOTIFY_BATCH_MS);
  }

  #flush(): Promise<void> {
    this.#flushTimer = undefined;
    const changes = this.#outbox.splice(0);
    const sending = this.#flushing.then(async () => {
      for (const payload of notificationPayloads(changes)) {
        // Best effort, as LISTEN/NOTIFY is: a lost announcement leaves the board itself intact.
        await this.#pool.query("SELECT pg_notify($1, $2)", [this.channel, payload]).catch(() => undefined);
      }
    });
    this.#flushing = sending;
    return sending;
  }
}

/** Refuses a write on behalf of `lease` unless it is still the row's current, unexpired lease. */
function checkFence(row: LockedRow, lease: TaskLease): void {
  if (row.state !== "in_progress" || Number(row.lease_token) !== lease.token || row.lease_live !== true) {
    throw new TaskLeaseError(lease, row.db_now.toISOString());
  }
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

function fromJsonRow(row: JsonTaskRow): Task {
  return fromRow({ ...row, id: String(row.id), blocks: row.blocks.map(String), blocked_by: row.blocked_by.map(String) });
}

function claimedTask(row: NonNullable<ClaimRow["claimed"]>): ClaimedTask {
  const task = fromJsonRow(row);
  return { ...task, lease: { taskId: task.id, owner: task.owner ?? "", token: Number(row.lease_token), expiresAt: isoTime(row.expires_ms) } };
}

/** The changes as JSON arrays, in order, each under MAX_PAYLOAD bytes (a single oversized change gets its ids summarized away). */
function notificationPayloads(changes: readonly TaskBoardChange[]): string[] {
  const payloads: string[] = [];
  let batch: string[] = [];
  let size = 2;
  for (const change of changes) {
    let text = JSON.stringify(change);
    if (text.length + 2 > MAX_PAYLOAD) text = JSON.stringify({ ...change, taskIds: [] });
    if (size + text.length + 1 > MAX_PAYLOAD && batch.length > 0) {
      payloads.push(`[${batch.join(",")}]`);
      batch = [];
      size = 2;
    }
    batch.push(text);
    size += text.length + 1;
  }
  if (batch.length > 0) payloads.push(`[${batch.join(",")}]`);
  return payloads;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Runs `step` again when PostgreSQL rolled it back for a deadlock or serialization failure (a safety net: the lock order avoids both). */
async function retryConflicts<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
      if (attempt >= ATTEMPTS || typeof code !== "string" || !RETRYABLE.has(code)) throw error;
    }
  }
}

async function insertTasks(client: pg.PoolClient, boardId: string, tasks: readonly Task[]): Promise<void> {
  if (tasks.length === 0) return;
  await client.query(
    `INSERT INTO stepwise_tasks (board_id, ${COLUMNS})
     SELECT $1, r.id, r.subject, r.description, r.state, r.owner, r.blocks, r.blocked_by, r.metadata, r.created_at
     FROM jsonb_to_recordset($2::jsonb) AS r (id bigint, subject text, description text, state text, owner text,
       blocks bigint[], blocked_by bigint[], metadata jsonb, created_at text)`,
    [boardId, JSON.stringify(tasks.map(toRecord))],
  );
}

/** Writes a task back; one that stopped being in progress loses its lease. */
async function saveTask(client: pg.PoolClient, boardId: string, task: Task): Promise<void> {
  await client.query(
    `UPDATE stepwise_tasks SET subject = $3, description = $4, state = $5, owner = $6, blocks = $7, blocked_by = $8, metadata = $9,
       lease_expires_at = CASE WHEN $5 = 'in_progress' THEN lease_expires_at END
     WHERE board_id = $1 AND id = $2`,
    [boardId, task.id, task.subject, task.description, task.state, task.owner, task.blocks, task.blockedBy, JSON.stringify(task.metadata)],
  );
}

function toRecord(task: Task) {
  return {
    id: task.id,
    subject: task.subject,
    description: task.description,
    state: task.state,
    owner: task.owner,
    blocks: `{${task.blocks.join(",")}}`,
    blocked_by: `{${task.blockedBy.join(",")}}`,
    metadata: task.metadata,
    created_at: task.createdAt,
  };
}

function fromRow(row: TaskRow): Task {
  return {
    id: String(row.id),
    subject: row.subject,
    description: row.description,
    state: row.state as TaskState,
    owner: row.owner,
    blocks: row.blocks.map(String),
    blockedBy: row.blocked_by.map(String),
    metadata: row.metadata,
    createdAt: row.created_at,
  };
}
