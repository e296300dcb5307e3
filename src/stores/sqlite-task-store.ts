import { applyChange, blockerGraph, nextClaimable, nextFreeId, normalizeImport, removeTask, unknownTaskError } from "../planning/tasks/task-graph.js";
import type { TaskStore, TaskStoreState } from "../planning/tasks/task-store.js";
import { cloneTask, countByState, newTask, TaskRuleError, type Task, type TaskChange, type TaskDraft, type TaskImport, type TaskState } from "../planning/tasks/task.js";
import { openSqliteDatabase, type SqliteDatabase } from "./sqlite-database.js";

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

/**
 * The embedded default: tasks in one SQLite file (WAL), committed as each change happens, so the
 * board survives a restart and a killed process leaves the last committed state. Several boards
 * can share a file; several processes can share a board (each change is one IMMEDIATE transaction).
 */
export class SqliteTaskStore implements TaskStore {
  readonly boardId: string;
  readonly #db: SqliteDatabase;
  readonly #ownsDb: boolean;

  constructor(opts: { path?: string; db?: SqliteDatabase; boardId?: string }) {
    if (!opts.db && !opts.path) throw new Error("SqliteTaskStore needs a file path (or an open database).");
    this.boardId = opts.boardId ?? "default";
    this.#db = opts.db ?? openSqliteDatabase(opts.path as string);
    this.#ownsDb = !opts.db;
    this.#db.exec(SCHEMA);
    this.#db.prepare("INSERT OR IGNORE INTO stepwise_task_boards (board_id, next_id) VALUES (?, 1)").run(this.boardId);
  }

  async list(): Promise<Task[]> {
    return this.#load();
  }

  async get(id: string): Promise<Task | undefined> {
    const row = this.#db.prepare("SELECT * FROM stepwise_tasks WHERE board_id = ? AND id = ?").get(this.boardId, id) as TaskRow | undefined;
    return row && fromRow(row);
  }

  async counts(): Promise<Record<TaskState, number>> {
    const rows = this.#db.prepare("SELECT state FROM stepwise_tasks WHERE board_id = ?").pluck().all(this.boardId) as TaskState[];
    return countByState(rows);
  }

  async create(draft: TaskDraft): Promise<Task> {
    return this.#write(() => {
      const task = newTask(String(this.#nextId()), draft);
      this.#insert(task);
      this.#setNextId(Number(task.id) + 1);
      return task;
    });
  }

  async update(id: string, change: TaskChange): Promise<Task> {
    return this.#write(() => {
      const tasks = this.#loadMap();
      for (const changedId of applyChange(tasks, blockerGraph(tasks.values()), id, change)) {
        this.#save(tasks.get(changedId) as Task);
      }
      return cloneTask(tasks.get(id) as Task);
    });
  }

  async remove(id: string): Promise<void> {
    this.#write(() => {
      const tasks = this.#loadMap();
      if (!tasks.has(id)) throw unknownTaskError(id, tasks.keys());
      for (const neighbour of removeTask(tasks, id)) this.#save(tasks.get(neighbour) as Task);
      this.#db.prepare("DELETE FROM stepwise_tasks WHERE board_id = ? AND id = ?").run(this.boardId, id);
    });
  }

  async claimNext(owner: string): Promise<Task | undefined> {
    return this.#write(() => {
      const task = nextClaimable(this.#loadMap(), owner);
      if (!task) return undefined;
      task.state = "in_progress";
      task.owner = owner;
      this.#save(task);
      return task;
    });
  }

  async replaceAll(tasks: readonly TaskImport[]): Promise<void> {
    const normalized = normalizeImport(tasks, new Date().toISOString());
    this.#write(() => this.#replace(normalized, this.#nextId()));
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

  #nextId(): number {
    const row = this.#db.prepare("SELECT next_id FROM stepwise_task_boards WHERE board_id = ?").get(this.boardId) as { next_id: number };
    return row.next_id;
  }

  #setNextId(next: number): void {
    this.#db.prepare("UPDATE stepwise_task_boards SET next_id = ? WHERE board_id = ?").run(next, this.boardId);
  }

  #load(): Task[] {
    const rows = this.#db.prepare("SELECT * FROM stepwise_tasks WHERE board_id = ? ORDER BY id").all(this.boardId) as TaskRow[];
    return rows.map(fromRow);
  }

  #loadMap(): Map<string, Task> {
    return new Map(this.#load().map((task) => [task.id, task]));
  }

  #insert(task: Task): void {
    this.#db
      .prepare(
        `INSERT INTO stepwise_tasks (board_id, id, subject, description, state, owner, blocks, blocked_by, metadata, created_at)
         VALUES (@board, @id, @subject, @description, @state, @owner, @blocks, @blockedBy, @metadata, @createdAt)`,
      )
      .run(toRow(this.boardId, task));
  }

  #save(task: Task): void {
    this.#db
      .prepare(
        `UPDATE stepwise_tasks SET subject = @subject, description = @description, state = @state, owner = @owner,
           blocks = @blocks, blocked_by = @blockedBy, metadata = @metadata WHERE board_id = @board AND id = @id`,
      )
      .run(toRow(this.boardId, task));
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
