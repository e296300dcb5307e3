import { applyChange, blockerGraph, checkReservedId, idRange, nextFreeId, normalizeImport, removeTask, unknownTaskError } from "../planning/tasks/task-graph.js";
import {
  checkFence,
  leaseDuration,
  leaseOf,
  renewStep,
  settleLease,
  type ClaimOptions,
  type FencedWrite,
  type LeaseState,
  type TaskClaim,
  type TaskLease,
} from "../planning/tasks/task-lease.js";
import { boardSummaries, type TaskBoardSummary, type TaskStore, type TaskStoreState } from "../planning/tasks/task-store.js";
import { matchingFromCounts, type TaskCounts, type TaskListFilter, type TaskListPage } from "../planning/tasks/task-list-view.js";
import { cloneTask, isTaskId, newTask, TaskRuleError, type Task, type TaskChange, type TaskDraft, type TaskImport, type TaskState } from "../planning/tasks/task.js";
import type { SqliteConnection } from "./sqlite-connection.js";
import { openSqliteDatabase, sqliteDatabase, type SqliteDatabase } from "./sqlite-database.js";
import { SQLITE_COUNTS, SQLITE_NEXT_CLAIMABLE, sqliteTaskView } from "./sqlite-task-view.js";

type TaskRow = {
  id: number;
  subject: string;
  description: string;
  state: string;
  owner: string | null;
  blocks: string;
  blocked_by: string;
  metadata: string;
  created_at: string;
  lease_token: number;
  lease_expires_at: number | null;
};

const SCHEMA = `
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
// Made after the columns are: claims and lease checks reach the tasks of one state through it.
const INDEXES = "CREATE INDEX IF NOT EXISTS stepwise_tasks_by_state ON stepwise_tasks (board_id, state, id)";

// Columns added after the first release; a file made by an older Stepwise gets them on open.
const ADDED_COLUMNS: { table: string; column: string; definition: string }[] = [
  { table: "stepwise_task_boards", column: "next_lease", definition: "INTEGER NOT NULL DEFAULT 1" },
  // The claim that last held the task (never reused) and, while that lease is live, when it ends (ms since 1970).
  { table: "stepwise_tasks", column: "lease_token", definition: "INTEGER NOT NULL DEFAULT 0" },
  { table: "stepwise_tasks", column: "lease_expires_at", definition: "INTEGER" },
];

/** Every board in the file, by id, with its task counts; reading creates nothing (a file no board was made in has none). */
export function sqliteTaskBoards(connection: SqliteConnection): TaskBoardSummary[] {
  const db = sqliteDatabase(connection);
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN ('stepwise_task_boards', 'stepwise_tasks')").get() as { n: number };
  if (tables.n < 2) return [];
  const rows = db
    .prepare(
      `SELECT boards.board_id AS board, t.state AS state, count(t.id) AS n
       FROM (SELECT board_id FROM stepwise_task_boards UNION SELECT board_id FROM stepwise_tasks) AS boards
       LEFT JOIN stepwise_tasks t ON t.board_id = boards.board_id
       GROUP BY boards.board_id, t.state ORDER BY boards.board_id`,
    )
    .all() as { board: string; state: TaskState | null; n: number }[];
  return boardSummaries(rows);
}

/**
 * The embedded default: tasks in one SQLite file (WAL), committed as each change happens, so the
 * board survives a restart and a killed process leaves the last committed state. Several boards
 * can share a file; several processes can share a board (each change is one IMMEDIATE transaction).
 */
export class SqliteTaskStore implements TaskStore {
  readonly boardId: string;
  readonly #db: SqliteDatabase;
  readonly #ownsDb: boolean;
  readonly #now: () => number;

  /**
   * `now` is the clock leases are judged by (milliseconds, Date.now by default); processes sharing
   * the file share the machine's clock.
   */
  constructor(opts: { path?: string; db?: SqliteConnection; boardId?: string; now?: () => number }) {
    if (!opts.db && !opts.path) throw new Error("SqliteTaskStore needs a file path (or an open database).");
    this.boardId = opts.boardId ?? "default";
    this.#db = opts.db ? sqliteDatabase(opts.db) : openSqliteDatabase(opts.path as string);
    this.#ownsDb = !opts.db;
    this.#now = opts.now ?? Date.now;
    this.#write(() => {
      this.#db.exec(SCHEMA);
      for (const { table, column, definition } of ADDED_COLUMNS) {
        const columns = this.#db.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[];
        if (!columns.includes(column)) this.#db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${definition}`);
      }
      this.#db.exec(INDEXES);
      this.#db.prepare("INSERT OR IGNORE INTO stepwise_task_boards (board_id, next_id) VALUES (?, 1)").run(this.boardId);
    });
  }

  async list(): Promise<Task[]> {
    return this.#load();
  }

  async get(id: string): Promise<Task | undefined> {
    const row = this.#row(id);
    return row && fromRow(row);
  }

  async counts(): Promise<Record<TaskState, number>> {
    const { ready: _ready, ...counts } = this.#counts();
    return counts;
  }

  #counts(): TaskCounts {
    const row = this.#db.prepare(SQLITE_COUNTS).get({ board: this.boardId }) as Record<keyof TaskCounts, number | null>;
    return { pending: row.pending ?? 0, in_progress: row.in_progress ?? 0, completed: row.completed ?? 0, ready: row.ready ?? 0 };
  }

  /** The view in SQL (see sqlite-task-view.ts): the rows shown and their blockers' states, never the whole board. */
  async listView(filter: TaskListFilter): Promise<TaskListPage> {
    const counts = this.#counts();
    const view = sqliteTaskView(filter);
    const rows = this.#db.prepare(view.page).all({ board: this.boardId, limit: filter.limit, owner: filter.owner ?? null }) as (TaskRow & { blocker_states: string })[];
    const blockerStates: Record<string, TaskState> = {};
    for (const row of rows) Object.assign(blockerStates, JSON.parse(row.blocker_states) as Record<string, TaskState>);
    const matching = view.matching
      ? (this.#db.prepare(view.matching).pluck().get({ board: this.boardId, owner: filter.owner ?? null }) as number)
      : matchingFromCounts(counts, filter);
    return { counts, matching, tasks: rows.map(fromRow), blockerStates };
  }

  async getMany(ids: readonly string[]): Promise<Task[]> {
    const rows = this.#db
      .prepare("SELECT * FROM stepwise_tasks WHERE board_id = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id")
      .all(this.boardId, JSON.stringify(ids.filter(isTaskId).map(Number))) as TaskRow[];
    return rows.map(fromRow);
  }

  async withExternalId(externalId: string): Promise<Task[]> {
    const rows = this.#db
      .prepare("SELECT * FROM stepwise_tasks WHERE board_id = ? AND json_extract(metadata, '$.externalId') = ? ORDER BY id")
      .all(this.boardId, externalId) as TaskRow[];
    return rows.map(fromRow);
  }

  async create(draft: TaskDraft, opts: { id?: string } = {}): Promise<Task> {
    return this.#write(() => {
      const next = this.#nextId();
      if (opts.id !== undefined) checkReservedId(opts.id, next, this.#row(opts.id) !== undefined);
      const task = newTask(opts.id ?? String(next), draft);
      this.#insert(task);
      if (opts.id === undefined) this.#setNextId(next + 1);
      return task;
    });
  }

  async reserveIds(count: number): Promise<string[]> {
    return this.#write(() => {
      const ids = idRange(this.#nextId(), count);
      this.#setNextId(this.#nextId() + ids.length);
      return ids;
    });
  }

  async update(id: string, change: TaskChange, opts: FencedWrite = {}): Promise<Task> {
    return this.#write(() => {
      // Only a new edge needs the whole board (to refuse a cycle); any other change reads its task alone.
      const addsEdges = (change.addBlocks?.length ?? 0) + (change.addBlockedBy?.length ?? 0) > 0;
      const { tasks, leases } = addsEdges ? this.#loadBoard() : this.#loadTask(id);
      const current = tasks.get(id);
      if (!current) throw unknownTaskError(id, this.#ids());
      if (opts.lease) checkFence(current, leases.get(id), opts.lease, this.#now());
      for (const changedId of applyChange(tasks, blockerGraph(tasks), id, change)) {
        const task = tasks.get(changedId) as Task;
        this.#save(task, settleLease(task, leases.get(changedId)));
      }
      return cloneTask(tasks.get(id) as Task);
    });
  }

  async remove(id: string): Promise<void> {
    this.#write(() => {
      const { tasks, leases } = this.#loadBoard();
      if (!tasks.has(id)) throw unknownTaskError(id, tasks.keys());
      for (const neighbour of removeTask(tasks, id)) this.#save(tasks.get(neighbour) as Task, leases.get(neighbour));
      this.#db.prepare("DELETE FROM stepwise_tasks WHERE board_id = ? AND id = ?").run(this.boardId, id);
    });
  }

  /**
   * The memory store's claim step (claimStep) in SQL, reading only the rows it changes: every task
   * whose lease ran out goes back to pending, unowned, and then the lowest free task is claimed.
   */
  async claimNext(owner: string, opts: ClaimOptions = {}): Promise<TaskClaim> {
    const leaseMs = leaseDuration(opts.leaseMs);
    return this.#write(() => {
      const now = this.#now();
      const expired = this.#releaseExpired(now);
      const row = this.#db.prepare(SQLITE_NEXT_CLAIMABLE).get({ board: this.boardId, owner }) as TaskRow | undefined;
      if (!row) return { task: undefined, expired };
      const task: Task = { ...fromRow(row), state: "in_progress", owner };
      const lease = { token: this.#takeLeaseToken(), expiresAtMs: now + leaseMs };
      this.#save(task, lease);
      return { task: { ...task, lease: leaseOf(task, lease) }, expired };
    });
  }

  /** Returns the tasks whose leases ran out by `now` to pending and unowned, keeping their tokens (never handed out again). */
  #releaseExpired(now: number): TaskLease[] {
    const rows = this.#db
      .prepare("SELECT * FROM stepwise_tasks WHERE board_id = ? AND state = 'in_progress' AND lease_expires_at <= ? ORDER BY id")
      .all(this.boardId, now) as TaskRow[];
    return rows.map((row) => {
      const task = fromRow(row);
      this.#save({ ...task, state: "pending", owner: null }, { token: row.lease_token, expiresAtMs: null });
      return leaseOf(task, leaseState(row));
    });
  }

  async renewLease(lease: TaskLease, leaseMs?: number): Promise<TaskLease> {
    const ms = leaseDuration(leaseMs);
    return this.#write(() => {
      const row = this.#row(lease.taskId);
      const task = row && fromRow(row);
      const renewed = renewStep(task, row && leaseState(row), lease, this.#now(), ms);
      this.#save(task as Task, renewed.state);
      return renewed.lease;
    });
  }

  async activeLeases(): Promise<number> {
    return this.#db
      .prepare("SELECT count(*) FROM stepwise_tasks WHERE board_id = ? AND state = 'in_progress' AND lease_expires_at > ?")
      .pluck()
      .get(this.boardId, this.#now()) as number;
  }

  async replaceAll(tasks: readonly TaskImport[]): Promise<Task[]> {
    const now = new Date().toISOString();
    return this.#write(() => {
      const normalized = normalizeImport(tasks, now, this.#nextId());
      this.#replace(normalized, this.#nextId());
      return normalized;
    });
  }

  saveState(): TaskStoreState {
    return { kind: "reference", store: "sqlite", boardId: this.boardId };
  }

  /** A saved reference must name this board; a memory snapshot is imported into it. */
  loadState(state: TaskStoreState): void {
    if (state.kind === "reference") {
      if (state.boardId !== this.boardId) {
        throw new TaskRuleError(`This saved board refers to board "${state.boardId}", but this store is open on board "${this.boardId}".`);
      }
      return;
    }
    const normalized = normalizeImport(state.tasks, new Date().toISOString());
    this.#write(() => this.#replace(normalized, state.nextId));
  }

  async close(): Promise<void> {
    if (this.#ownsDb && this.#db.open) this.#db.close();
  }

  /** Runs `fn` as one IMMEDIATE transaction: it takes the write lock up front, so two processes never deadlock upgrading. */
  #write<T>(fn: () => T): T {
    return this.#db.transaction(fn).immediate();
  }

  #replace(tasks: Task[], floor: number): void {
    this.#db.prepare("DELETE FROM stepwise_tasks WHERE board_id = ?").run(this.boardId);
    for (const task of tasks) this.#insert(task);
    this.#setNextId(nextFreeId(tasks, Math.max(floor, this.#nextId())));
  }

  #row(id: string): TaskRow | undefined {
    return this.#db.prepare("SELECT * FROM stepwise_tasks WHERE board_id = ? AND id = ?").get(this.boardId, id) as TaskRow | undefined;
  }

  #takeLeaseToken(): number {
    const row = this.#db
      .prepare("UPDATE stepwise_task_boards SET next_lease = next_lease + 1 WHERE board_id = ? RETURNING next_lease - 1 AS token")
      .get(this.boardId) as { token: number };
    return row.token;
  }

  #nextId(): number {
    const row = this.#db.prepare("SELECT next_id FROM stepwise_task_boards WHERE board_id = ?").get(this.boardId) as { next_id: number };
    return row.next_id;
  }

  #setNextId(next: number): void {
    this.#db.prepare("UPDATE stepwise_task_boards SET next_id = ? WHERE board_id = ?").run(next, this.boardId);
  }

  #rows(): TaskRow[] {
    return this.#db.prepare("SELECT * FROM stepwise_tasks WHERE board_id = ? ORDER BY id").all(this.boardId) as TaskRow[];
  }

  #load(): Task[] {
    return this.#rows().map(fromRow);
  }

  #ids(): string[] {
    return (this.#db.prepare("SELECT id FROM stepwise_tasks WHERE board_id = ?").pluck().all(this.boardId) as number[]).map(String);
  }

  #loadBoard(): { tasks: Map<string, Task>; leases: Map<string, LeaseState> } {
    return this.#boardOf(this.#rows());
  }

  /** The task `id` alone (nothing when there is no such task), as #loadBoard gives the board. */
  #loadTask(id: string): { tasks: Map<string, Task>; leases: Map<string, LeaseState> } {
    const row = this.#row(id);
    return this.#boardOf(row ? [row] : []);
  }

  #boardOf(rows: readonly TaskRow[]): { tasks: Map<string, Task>; leases: Map<string, LeaseState> } {
    return {
      tasks: new Map(rows.map((row) => [String(row.id), fromRow(row)])),
      leases: new Map(rows.map((row) => [String(row.id), leaseState(row)])),
    };
  }

  #insert(task: Task): void {
    this.#db
      .prepare(
        `INSERT INTO stepwise_tasks (board_id, id, subject, description, state, owner, blocks, blocked_by, metadata, created_at)
         VALUES (@board, @id, @subject, @description, @state, @owner, @blocks, @blockedBy, @metadata, @createdAt)`,
      )
      .run(toRow(this.boardId, task));
  }

  /** Writes a task back; with `lease`, its lease columns too (otherwise they stay as they are). */
  #save(task: Task, lease?: LeaseState): void {
    this.#db
      .prepare(
        `UPDATE stepwise_tasks SET subject = @subject, description = @description, state = @state, owner = @owner,
           blocks = @blocks, blocked_by = @blockedBy, metadata = @metadata,
           lease_token = coalesce(@leaseToken, lease_token),
           lease_expires_at = CASE WHEN @leaseToken IS NULL THEN lease_expires_at ELSE @leaseExpiresAt END
         WHERE board_id = @board AND id = @id`,
      )
      .run({ ...toRow(this.boardId, task), leaseToken: lease?.token ?? null, leaseExpiresAt: lease?.expiresAtMs ?? null });
  }
}

function toRow(board: string, task: Task) {
  return {
    board,
    id: Number(task.id),
    subject: task.subject,
    description: task.description,
    state: task.state,
    owner: task.owner,
    blocks: JSON.stringify(task.blocks),
    blockedBy: JSON.stringify(task.blockedBy),
    metadata: JSON.stringify(task.metadata),
    createdAt: task.createdAt,
  };
}

function leaseState(row: TaskRow): LeaseState {
  return { token: row.lease_token, expiresAtMs: row.lease_expires_at };
}

function fromRow(row: TaskRow): Task {
  return {
    id: String(row.id),
    subject: row.subject,
    description: row.description,
    state: row.state as TaskState,
    owner: row.owner,
    blocks: JSON.parse(row.blocks) as string[],
    blockedBy: JSON.parse(row.blocked_by) as string[],
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: row.created_at,
  };
}
