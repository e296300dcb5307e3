import pg from "pg";
import { applyChange, checkReservedId, idRange, normalizeImport, openBlockers, removeTask, sortIds, unknownTaskError } from "../planning/tasks/task-graph.js";
import { leaseDuration, leaseOf, TaskLeaseError, type ClaimOptions, type FencedWrite, type TaskClaim, type TaskLease } from "../planning/tasks/task-lease.js";
import { matchingFromCounts, type TaskCounts, type TaskListFilter, type TaskListPage } from "../planning/tasks/task-list-view.js";
import { boardSummaries, type CompleteAndClaim, type TaskBoardSummary, type TaskStore, type TaskStoreState } from "../planning/tasks/task-store.js";
import { isTaskId, newTask, TaskRuleError, type Task, type TaskBoardChange, type TaskChange, type TaskDraft, type TaskImport, type TaskState } from "../planning/tasks/task.js";
import type { PostgresPool } from "./postgres-pool.js";
import { MAX_NOTIFICATION_PAYLOAD, NotificationOutbox } from "./postgres-notification-outbox.js";
import { ensureTaskSchema, HAS_EXTERNAL_ID, IS_ASSIGNED, IS_READY } from "./postgres-task-schema.js";
import { TASK_COUNTS, taskViewQuery } from "./postgres-task-view.js";
import { pgPool } from "./postgres-transaction.js";

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

/** A single-row update's answer: the task after it, or (when nothing changed) whether the task exists and the database's time. */
type UpdateRow = Partial<TaskRow> & { found: boolean | null; db_now: Date | null };

/** A task as JSON writes a row of it (bigints as numbers). */
type TaskJson = Omit<TaskRow, "id" | "blocks" | "blocked_by"> & { id: number; blocks: number[]; blocked_by: number[] };

/**
 * A step's answer, one JSON value (see claimStatement): the claimed task's columns (null when none
 * was claimed) with its lease; for a completing step, the completed task, or when it was refused.
 */
type StepAnswer = Partial<TaskJson> & {
  lease_token: number | null;
  expires_ms: number | null;
  expired: { taskId: string; owner: string | null; token: number; expiresMs: number }[] | null;
  released: string[] | null;
  /** The common statement found what only the full one handles, and changed nothing. */
  full_step: boolean;
  completed?: TaskJson | null;
  refused_at_ms?: number | null;
};

export type PostgresTaskStoreOptions = {
  /** Which board of the shared database; letters, digits, "_", "-", ".", ":" (at most 48). */
  boardId: string;
  /** A pool to share with the rest of the application; otherwise one is made from `connectionString` (or the PG* variables). */
  pool?: PostgresPool;
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
const NOTIFY_BATCH_MS = 50;
// Deadlock and serialization failures roll the whole change back, so it is safe to run it again.
const RETRYABLE = new Set(["40P01", "40001"]);
const ATTEMPTS = 3;

const COLUMNS = "id, subject, description, state, owner, blocks, blocked_by, metadata, created_at";
const T_COLUMNS = COLUMNS.split(", ").map((column) => `t.${column}`).join(", ");

/**
 * A write fenced by a lease: the row is still in progress under that token, and the lease has not
 * run out. Written as a CASE so that the planner cannot read `state = 'in_progress'` out of it and
 * reach the row through the lease index (reading every task in progress on the board) instead of by
 * its key. `token` is the parameter holding the lease token.
 */
const LEASE_HELD = (token: string) => `CASE WHEN state = 'in_progress' AND lease_token = ${token} AND lease_expires_at > now() THEN true ELSE false END`;

/** A timestamptz as milliseconds since 1970, a JSON number. */
const EPOCH_MS = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8`;

// The new metadata of a change: merged key by key ($patch), with the keys in $drop deleted.
const MERGED_METADATA = (patch: string, drop: string) =>
  `CASE WHEN ${patch}::jsonb = '{}' AND cardinality(${drop}::text[]) = 0 THEN t.metadata ELSE (t.metadata || ${patch}::jsonb) - ${drop}::text[] END`;

// What the common statement's guard probes for, as the full statement's parts look for it.
const LEASE_RAN_OUT = "state = 'in_progress' AND lease_expires_at <= now()";
const ASSIGNED_TO_CLAIMER = `owner = $2 AND ${IS_ASSIGNED}`;

// One statement, so one atomic step by one clock (now() is the statement's start), and one round
// trip: lock the lowest free row (through the ready index, or the assigned one for a task given to
// this owner) or one whose lease expired, skipping rows another claimer holds; return every other
// expired task to pending; claim the chosen row under the next lease of that task. Each row is
// reached by key or by its own partial index, so the cost does not grow with the board, however
// much of it waits. $1 board, $2 owner, $3 lease in ms.
//
// Most steps find no expired lease and no task assigned to the claimer, and then the parts that
// handle those do nothing, yet their plan nodes are still set up and torn down on every run: about a
// tenth of the database's time per step (`npm run bench -- --only board-claims`). So each step comes
// in two statements. The common one (`common: true`) leaves those parts out and first checks, by
// one probe of each of their indexes, that no such row exists; if one does, it changes nothing and
// says so (`full_step`), and the full statement runs instead. It checks without skipping locked
// rows, so it steps aside whenever the full statement might find such a row; when it does not, the
// full statement would have done exactly what it does.
//
// A step that completes a task first (`completes`): the fenced completion of task $4 under lease
// token $7 (metadata merged with $5, keys in $6 deleted), then the tasks it blocked counted down
// by the UPDATE that claims (`claimed`). A task this completion frees competes in the claim
// (`freed`: its last open blocker was the task just completed), and gets both changes at once, as
// one statement may change a row only once. The count-down shares that UPDATE because each UPDATE
// opens every index of the table and prepares their predicates when it runs: one of its own cost
// about 5% of a step's database time (paired rounds of the board bench). When the completion was
// refused, `refused_at_ms` says when, for the TaskLeaseError.
function claimStatement(step: { common: boolean; completes: boolean }): string {
  const proceed = step.common ? " AND NOT (SELECT full_step FROM guard)" : "";
  const ctes = [
    step.common &&
      `guard AS (
    SELECT EXISTS (SELECT 1 FROM stepwise_tasks WHERE board_id = $1 AND ${LEASE_RAN_OUT})
      OR EXISTS (SELECT 1 FROM stepwise_tasks WHERE board_id = $1 AND ${ASSIGNED_TO_CLAIMER}) AS full_step
  )`,
    step.completes &&
      `done AS (
    UPDATE stepwise_tasks t SET state = 'completed', lease_expires_at = NULL, metadata = ${MERGED_METADATA("$5", "$6")}
    WHERE t.board_id = $1 AND t.id = $4 AND ${LEASE_HELD("$7")}${proceed}
    RETURNING ${T_COLUMNS}
  ), freed AS (
    -- The ids as one array value and no ORDER BY … LIMIT, and the rest of the test as a CASE, so that
    -- the rows are reached by key. Given the test plainly, a plan made under statistics taken while no
    -- task waited read the whole waiting index instead, on every step. These rows are locked and
    -- counted down anyway.
    SELECT d.id FROM stepwise_tasks d
    WHERE d.board_id = $1 AND d.id = ANY ((SELECT blocks FROM done)::bigint[])
      AND CASE WHEN d.state = 'pending' AND d.open_blockers = 1 AND (d.owner IS NULL OR d.owner = $2) THEN true ELSE false END
    FOR UPDATE OF d SKIP LOCKED
  )`,
    !step.common &&
      `expired AS (
    SELECT t.id, t.owner, t.lease_token, t.lease_expires_at, t.open_blockers FROM stepwise_tasks t
    WHERE t.board_id = $1 AND ${LEASE_RAN_OUT}
    FOR UPDATE OF t SKIP LOCKED
  ), assigned_pick AS (
    SELECT id FROM stepwise_tasks WHERE board_id = $1 AND ${ASSIGNED_TO_CLAIMER} ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
  )`,
    `ready_pick AS (
    SELECT id FROM stepwise_tasks WHERE board_id = $1 AND ${IS_READY}${proceed} ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
  ), picked AS (
    SELECT id FROM (
      SELECT id FROM ready_pick${step.common ? "" : " UNION ALL SELECT id FROM assigned_pick UNION ALL SELECT id FROM expired WHERE open_blockers = 0"}${step.completes ? " UNION ALL SELECT id FROM freed" : ""}
    ) p ORDER BY id LIMIT 1
  )`,
    !step.common &&
      `released AS (
    UPDATE stepwise_tasks t SET state = 'pending', owner = NULL, lease_expires_at = NULL
    -- The lease conditions again (true of every expired row, which is locked) so the row is found
    -- through the lease index, never by a scan of the board.
    WHERE t.board_id = $1 AND ${LEASE_RAN_OUT}
      AND t.id = ANY (ARRAY (SELECT id FROM expired)) AND t.id IS DISTINCT FROM (SELECT id FROM picked)
    RETURNING t.id
  )`,
    `claimed AS (
    UPDATE stepwise_tasks t SET
      state = CASE WHEN t.id = r.claim THEN 'in_progress' ELSE t.state END,
      owner = CASE WHEN t.id = r.claim THEN $2 ELSE t.owner END,
      lease_token = CASE WHEN t.id = r.claim THEN t.lease_token + 1 ELSE t.lease_token END,
      lease_expires_at = CASE WHEN t.id = r.claim THEN now() + $3 * interval '1 millisecond' ELSE t.lease_expires_at END,
      open_blockers = t.open_blockers - CASE WHEN t.id = ANY (r.counted) THEN 1 ELSE 0 END
    -- OFFSET 0 keeps the planner from copying the pick into every place that reads r.claim.
    FROM (SELECT (SELECT id FROM picked) AS claim, ${step.completes ? "coalesce ((SELECT blocks FROM done), '{}')" : "'{}'::bigint[]"} AS counted OFFSET 0) r
    WHERE t.board_id = $1 AND t.id = ANY (r.counted || r.claim)
    RETURNING ${T_COLUMNS}, t.lease_token, ${EPOCH_MS("t.lease_expires_at")} AS expires_ms, t.id = r.claim AS is_claim
  )`,
  ];
  const columns = [
    step.common
      ? "NULL::json AS expired, NULL::json AS released, (SELECT full_step FROM guard) AS full_step"
      : `-- Every expired lease ended here: its task was either released or claimed again.
    (SELECT json_agg(json_build_object('taskId', id::text, 'owner', owner, 'token', lease_token,
       'expiresMs', ${EPOCH_MS("lease_expires_at")}) ORDER BY id) FROM expired) AS expired,
    (SELECT json_agg(id::text ORDER BY id) FROM released) AS released, false AS full_step`,
    step.completes && `(SELECT row_to_json(done) FROM done) AS completed, CASE WHEN NOT EXISTS (SELECT 1 FROM done) THEN ${EPOCH_MS("now()")} END AS refused_at_ms`,
  ];
  // The answer as one JSON value: parsed at once in Node, where a column each cost a parser each.
  return `
  WITH ${ctes.filter(Boolean).join(", ")}, answer AS (
    SELECT c.*,
      ${columns.filter(Boolean).join(",\n    ")}
    FROM (SELECT 1) AS one LEFT JOIN claimed c ON c.is_claim
  )
  SELECT row_to_json(answer) AS answer FROM answer`;
}

type StepStatements = Record<"common" | "full", { name: string; text: string }>;

/** A step's two statements, prepared under `name`: the common one and the full one it may step aside for. */
function stepStatements(name: string, completes: boolean): StepStatements {
  return {
    common: { name: `${name}-common`, text: claimStatement({ common: true, completes }) },
    full: { name: `${name}-full`, text: claimStatement({ common: false, completes }) },
  };
}
const CLAIM = stepStatements("stepwise-task-claim", false);
const COMPLETE_AND_CLAIM = stepStatements("stepwise-task-complete-claim", true);

/**
 * A change to one task that adds no edge, as one statement: check the fence, apply the change as
 * applyChange would (fields replaced, metadata merged with null deleting a key, the lease dropped
 * once not in progress), and when the task starts or stops being completed, count its dependents'
 * open blockers down or up. A fenced write (`fenced`, $10 the lease token) knows the task was in
 * progress; any other locks the row first to read the state it changes from.
 */
function updateOne(fenced: boolean): string {
  const before = fenced ? "" : `old AS (SELECT t.state FROM stepwise_tasks t WHERE t.board_id = $1 AND t.id = $2 FOR UPDATE), `;
  return `
  WITH ${before}changed AS (
    UPDATE stepwise_tasks t SET
      subject = coalesce($3, t.subject),
      description = coalesce($4, t.description),
      state = coalesce($5, t.state),
      owner = CASE WHEN $6::boolean THEN $7 ELSE t.owner END,
      metadata = ${MERGED_METADATA("$8", "$9")},
      lease_expires_at = CASE WHEN coalesce($5, t.state) = 'in_progress' THEN t.lease_expires_at END
    ${fenced ? "" : "FROM old"}
    WHERE t.board_id = $1 AND t.id = $2
      ${fenced ? `AND ${LEASE_HELD("$10")}` : ""}
    RETURNING ${T_COLUMNS}, ${fenced ? "'in_progress'::text" : "old.state"} AS old_state
  ), counted AS (
    -- The ids as one array value, so that the rows are reached by key.
    UPDATE stepwise_tasks d SET open_blockers = d.open_blockers + (SELECT CASE WHEN state = 'completed' THEN -1 ELSE 1 END FROM changed)
    WHERE d.board_id = $1 AND d.id = ANY ((SELECT blocks FROM changed WHERE (state = 'completed') <> (old_state = 'completed'))::bigint[])
  )
  SELECT c.*,
    CASE WHEN c.id IS NULL THEN EXISTS (SELECT 1 FROM stepwise_tasks WHERE board_id = $1 AND id = $2) END AS found,
    CASE WHEN c.id IS NULL THEN now() END AS db_now
  FROM (SELECT 1) AS one LEFT JOIN changed c ON true`;
}
const UPDATE_ONE = updateOne(false);
const UPDATE_FENCED = updateOne(true);

/** Every board in the database, by id, with its task counts; reading creates nothing (a database no board was made in has none). */
export async function postgresTaskBoards(given: PostgresPool): Promise<TaskBoardSummary[]> {
  const pool = pgPool(given);
  const present = await pool.query<{ present: boolean }>("SELECT to_regclass('stepwise_tasks') IS NOT NULL AS present");
  if (!present.rows[0]?.present) return [];
  const { rows } = await pool.query<{ board: string; state: TaskState | null; n: string }>(
    `SELECT b.board_id AS board, t.state AS state, count(t.id) AS n
     FROM stepwise_task_boards b LEFT JOIN stepwise_tasks t ON t.board_id = b.board_id
     GROUP BY b.board_id, t.state ORDER BY b.board_id`,
  );
  return boardSummaries(rows);
}

/**
 * One task board shared through PostgreSQL by agents in many processes and machines. Many boards
 * share one schema, keyed by board id; tables are created if missing. Each change is one
 * transaction, claims use FOR UPDATE SKIP LOCKED, and every change is announced with NOTIFY on the
 * board's channel (see `subscribe`).
 *
 * Lock order, which keeps changes from deadlocking: the board row first, then task rows in id order.
 * A change of edges or a delete holds the board row. A claim takes only rows no one holds (SKIP
 * LOCKED); a change of one task takes its row, and when the task starts or stops being completed,
 * then the rows of the tasks it blocks: a task always before the tasks waiting on it, so these waits
 * follow the dependencies, which never loop. Where the two orders could still cross, PostgreSQL's
 * deadlock detection rolls one change back, and it is run again.
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
  /** Announces committed changes on `channel`. */
  readonly #outbox: NotificationOutbox;

  constructor(opts: PostgresTaskStoreOptions) {
    if (!BOARD_ID.test(opts.boardId)) {
      throw new Error(`Board id "${opts.boardId}" is not accepted: use 1-48 letters, digits, "_", "-", "." or ":".`);
    }
    this.boardId = opts.boardId;
    this.channel = `stepwise_tasks:${opts.boardId}`;
    this.#pool = (opts.pool ? pgPool(opts.pool) : undefined) ?? new pg.Pool(opts.connectionString ? { connectionString: opts.connectionString } : {});
    this.#ownsPool = !opts.pool;
    this.#outbox = new NotificationOutbox(this.#pool, this.channel, NOTIFY_BATCH_MS);
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
    const { ready: _ready, ...counts } = await this.#counts();
    return counts;
  }

  /** Counts by index: the board's task count is kept on its row, the rest counted in their own partial indexes. */
  async #counts(): Promise<TaskCounts> {
    await this.#init();
    const { rows } = await this.#pool.query<{ total: number; in_progress: number; completed: number; ready: number }>({
      name: "stepwise-task-counts",
      text: TASK_COUNTS,
      values: [this.boardId],
    });
    const row = rows[0] ?? { total: 0, in_progress: 0, completed: 0, ready: 0 };
    return { pending: row.total - row.in_progress - row.completed, in_progress: row.in_progress, completed: row.completed, ready: row.ready };
  }

  async listView(filter: TaskListFilter): Promise<TaskListPage> {
    const counts = await this.#counts();
    const view = taskViewQuery(this.boardId, filter, COLUMNS);
    const { rows } = await this.#pool.query<TaskRow & { blocker_states: Record<string, TaskState> | null }>(view.page);
    const blockerStates: Record<string, TaskState> = {};
    for (const row of rows) Object.assign(blockerStates, row.blocker_states);
    const matching = view.matching ? ((await this.#pool.query<{ n: number }>(view.matching)).rows[0]?.n ?? 0) : matchingFromCounts(counts, filter);
    return { counts, matching, tasks: rows.map(fromRow), blockerStates };
  }

  async getMany(ids: readonly string[]): Promise<Task[]> {
    const wanted = [...new Set(ids.filter(isTaskId))];
    if (wanted.length === 0) return [];
    await this.#init();
    const { rows } = await this.#pool.query<TaskRow>(`SELECT ${COLUMNS} FROM stepwise_tasks WHERE board_id = $1 AND id = ANY ($2::bigint[]) ORDER BY id`, [this.boardId, wanted]);
    return rows.map(fromRow);
  }

  async withExternalId(externalId: string): Promise<Task[]> {
    await this.#init();
    const { rows } = await this.#pool.query<TaskRow>(
      `SELECT ${COLUMNS} FROM stepwise_tasks WHERE board_id = $1 AND ${HAS_EXTERNAL_ID} AND metadata ->> 'externalId' = $2 ORDER BY id`,
      [this.boardId, externalId],
    );
    return rows.map(fromRow);
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
      await this.#lockBoard(client);
      const { tasks, rows } = await this.#lockTasks(client, [id, ...named]);
      if (!tasks.has(id)) throw unknownTaskError(id, await this.#ids(client));
      if (opts.lease) checkFence(rows.get(id) as LockedRow, opts.lease);
      const before = new Map([...tasks].map(([key, task]) => [key, { state: task.state, blocks: task.blocks, blockedBy: task.blockedBy }]));
      const changed = applyChange(tasks, await this.#graph(client), id, change);
      for (const changedId of changed) await saveTask(client, this.boardId, tasks.get(changedId) as Task);
      await this.#countBlockers(client, openBlockerDeltas(before, tasks));
      await this.#notify(client, "updated", changed);
      return tasks.get(id) as Task;
    });
  }

  /** One statement for a change that adds no edge (see updateOne): one round trip, no explicit transaction. */
  async #updateOne(id: string, change: TaskChange, opts: FencedWrite): Promise<Task> {
    await this.#init();
    const patch = metadataPatch(change.metadata);
    const values = [
      this.boardId,
      isTaskId(id) ? id : "0",
      change.subject ?? null,
      change.description ?? null,
      change.state ?? null,
      change.owner !== undefined,
      change.owner ?? null,
      patch.merge,
      patch.drop,
      ...(opts.lease ? [opts.lease.token] : []),
    ];
    const query = opts.lease ? { name: "stepwise-task-update-fenced", text: UPDATE_FENCED, values } : { name: "stepwise-task-update", text: UPDATE_ONE, values };
    const { rows } = await retryConflicts(() => this.#pool.query<UpdateRow>(query));
    const row = rows[0] as UpdateRow;
    if (row.id !== null && row.id !== undefined) {
      this.#announce({ boardId: this.boardId, action: "updated", taskIds: [row.id] });
      return fromRow(row as TaskRow);
    }
    // No row changed. Without a lease to check, the task was deleted by a writer this update waited
    // on; `found` reads the statement's snapshot, from before that delete, so it cannot tell.
    if (!row.found || !opts.lease) throw unknownTaskError(id, await this.#allIds());
    throw new TaskLeaseError(opts.lease, (row.db_now as Date).toISOString());
  }

  async remove(id: string): Promise<void> {
    await this.#transaction(async (client) => {
      await this.#lockBoard(client);
      // Edges change only under the board lock, so these neighbours stay put until we commit; locking
      // them with the task in one ordered step keeps the id order (locking the task first would not).
      const edges = await this.#neighbours(client, id);
      if (!edges) throw unknownTaskError(id, await this.#ids(client));
      const { tasks } = await this.#lockTasks(client, [id, ...edges]);
      const removed = tasks.get(id) as Task;
      const neighbours = removeTask(tasks, id);
      await this.#deleteRows(client, "AND id = $2", [id]);
      for (const neighbour of neighbours) await saveTask(client, this.boardId, tasks.get(neighbour) as Task);
      // A deleted blocker counts as done.
      if (removed.state !== "completed") await this.#countBlockers(client, new Map(removed.blocks.map((blocked) => [blocked, -1])));
      await this.#notify(client, "deleted", [id, ...neighbours]);
    });
  }

  /** Adds each task's difference to its count of open blockers. */
  async #countBlockers(client: pg.PoolClient, deltas: ReadonlyMap<string, number>): Promise<void> {
    const changed = [...deltas].filter(([, delta]) => delta !== 0);
    if (changed.length === 0) return;
    await client.query(
      `UPDATE stepwise_tasks t SET open_blockers = t.open_blockers + d.delta FROM unnest($2::bigint[], $3::int[]) AS d (id, delta)
       WHERE t.board_id = $1 AND t.id = d.id`,
      [this.boardId, changed.map(([taskId]) => taskId), changed.map(([, delta]) => delta)],
    );
  }

  /**
   * Deletes the board's rows that `where` picks (after `board_id = $1`), keeping the board's task
   * count, and raising its lease floor to their highest lease token so that an id imported again
   * never hands out one of their tokens twice.
   */
  async #deleteRows(client: pg.PoolClient, where: string, values: unknown[]): Promise<void> {
    await client.query(
      `WITH gone AS (DELETE FROM stepwise_tasks WHERE board_id = $1 ${where} RETURNING lease_token)
       UPDATE stepwise_task_boards SET task_count = task_count - (SELECT count(*) FROM gone),
         lease_floor = GREATEST(lease_floor, (SELECT max(lease_token) FROM gone))
       WHERE board_id = $1`,
      [this.boardId, ...values],
    );
  }

  async claimNext(owner: string, opts: ClaimOptions = {}): Promise<TaskClaim> {
    const leaseMs = leaseDuration(opts.leaseMs);
    await this.#init();
    return this.#claimed(await this.#step(CLAIM, [this.boardId, owner, leaseMs]));
  }

  /** Runs a step's common statement, and its full one when the common one stepped aside (see claimStatement). */
  async #step(statements: StepStatements, values: unknown[]): Promise<StepAnswer> {
    const run = async (kind: keyof StepStatements) => {
      const { rows } = await retryConflicts(() => this.#pool.query<{ answer: StepAnswer }>({ ...statements[kind], values }));
      return (rows[0] as { answer: StepAnswer }).answer;
    };
    const common = await run("common");
    return common.full_step ? run("full") : common;
  }

  /** The claim a step's answer describes, announced. */
  #claimed(answer: StepAnswer): TaskClaim {
    if (answer.released) this.#announce({ boardId: this.boardId, action: "released", taskIds: answer.released });
    const expired = (answer.expired ?? []).map((lease) => ({ taskId: lease.taskId, owner: lease.owner ?? "", token: lease.token, expiresAt: isoTime(lease.expiresMs) }));
    if (answer.id === null || answer.id === undefined) return { task: undefined, expired };
    const task = fromJson(answer as TaskJson);
    this.#announce({ boardId: this.boardId, action: "claimed", taskIds: [task.id] });
    return { task: { ...task, lease: leaseOf(task, { token: answer.lease_token as number, expiresAtMs: answer.expires_ms }) }, expired };
  }

  async completeAndClaim(lease: TaskLease, metadata: Record<string, unknown> | undefined, owner: string, opts: ClaimOptions = {}): Promise<CompleteAndClaim> {
    const leaseMs = leaseDuration(opts.leaseMs);
    await this.#init();
    const patch = metadataPatch(metadata);
    const values = [this.boardId, owner, leaseMs, isTaskId(lease.taskId) ? lease.taskId : "0", patch.merge, patch.drop, lease.token];
    const answer = await this.#step(COMPLETE_AND_CLAIM, values);
    const completed = answer.completed ? fromJson(answer.completed) : new TaskLeaseError(lease, isoTime(answer.refused_at_ms as number));
    if (!(completed instanceof TaskLeaseError)) this.#announce({ boardId: this.boardId, action: "updated", taskIds: [completed.id] });
    return { completed, claim: this.#claimed(answer) };
  }

  async renewLease(lease: TaskLease, leaseMs?: number): Promise<TaskLease> {
    const ms = leaseDuration(leaseMs);
    await this.#init();
    const { rows } = await this.#pool.query<{ expires_ms: number | null; db_now: Date }>(
      `WITH renewed AS (
         UPDATE stepwise_tasks SET lease_expires_at = now() + $4 * interval '1 millisecond'
         WHERE board_id = $1 AND id = $2 AND ${LEASE_HELD("$3")}
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
      await this.#outbox.flush();
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
    await ensureTaskSchema(this.#pool);
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
      await this.#deleteRows(client, "", []);
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

  /** Queues a committed change for the next NOTIFY (see NotificationOutbox for why not in the transaction). */
  #announce(change: TaskBoardChange): void {
    let text = JSON.stringify(change);
    // A change too large for one notification still says what happened, without its ids.
    if (Buffer.byteLength(text) + 2 > MAX_NOTIFICATION_PAYLOAD) text = JSON.stringify({ ...change, taskIds: [] });
    this.#outbox.queue(text);
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

/** A metadata change as the statements take it: the keys to merge (JSON) and the keys a null value deletes. */
function metadataPatch(metadata: Record<string, unknown> | undefined): { merge: string; drop: string[] } {
  const entries = Object.entries(metadata ?? {});
  return { merge: JSON.stringify(Object.fromEntries(entries.filter(([, value]) => value !== null))), drop: entries.filter(([, value]) => value === null).map(([key]) => key) };
}

/** A task's state and edges before a change, as openBlockerDeltas compares them. */
type Before = { state: TaskState; blocks: readonly string[]; blockedBy: readonly string[] };

/**
 * What a change of locked tasks does to the counts of open blockers: a task that starts or stops
 * being completed counts the tasks it blocked up or down, and a new edge counts its blocked task up
 * while the blocker is not completed. Differences, not totals, so racing changes add up.
 */
function openBlockerDeltas(before: ReadonlyMap<string, Before>, after: ReadonlyMap<string, Task>): Map<string, number> {
  const deltas = new Map<string, number>();
  const add = (id: string, n: number) => deltas.set(id, (deltas.get(id) ?? 0) + n);
  const open = (state: TaskState | undefined) => state !== undefined && state !== "completed";
  for (const [id, task] of after) {
    const old = before.get(id);
    if (!old) continue;
    if (open(old.state) !== open(task.state)) for (const blocked of old.blocks) add(blocked, open(task.state) ? 1 : -1);
    for (const blocker of task.blockedBy) if (!old.blockedBy.includes(blocker) && open(after.get(blocker)?.state)) add(id, 1);
  }
  return deltas;
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

/**
 * Inserts new rows with their counts of open blockers, lease tokens from the board's floor, and the
 * board's task count raised to match, in one statement.
 */
async function insertTasks(client: pg.PoolClient, boardId: string, tasks: readonly Task[]): Promise<void> {
  if (tasks.length === 0) return;
  const states = new Map(tasks.map((task) => [task.id, task.state]));
  await client.query(
    `WITH added AS (
       INSERT INTO stepwise_tasks (board_id, ${COLUMNS}, open_blockers, lease_token)
       SELECT $1, r.id, r.subject, r.description, r.state, r.owner, r.blocks, r.blocked_by, r.metadata, r.created_at, r.open_blockers,
         (SELECT lease_floor FROM stepwise_task_boards WHERE board_id = $1)
       FROM jsonb_to_recordset($2::jsonb) AS r (id bigint, subject text, description text, state stepwise_task_state, owner text,
         blocks bigint[], blocked_by bigint[], metadata jsonb, created_at text, open_blockers integer)
       RETURNING 1)
     UPDATE stepwise_task_boards SET task_count = task_count + (SELECT count(*) FROM added) WHERE board_id = $1`,
    [boardId, JSON.stringify(tasks.map((task) => ({ ...toRecord(task), open_blockers: openBlockers(task, (id) => states.get(id)).length })))],
  );
}

/** Writes a task back; one that stopped being in progress loses its lease. */
async function saveTask(client: pg.PoolClient, boardId: string, task: Task): Promise<void> {
  await client.query(
    `UPDATE stepwise_tasks SET subject = $3, description = $4, state = $5, owner = $6, blocks = $7, blocked_by = $8, metadata = $9,
       lease_expires_at = CASE WHEN $5::stepwise_task_state = 'in_progress' THEN lease_expires_at END
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

function fromJson(task: TaskJson): Task {
  return fromRow({ ...task, id: String(task.id), blocks: task.blocks.map(String), blocked_by: task.blocked_by.map(String) });
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
