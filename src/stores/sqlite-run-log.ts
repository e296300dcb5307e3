import type { AgentEvent } from "../core/events.js";
import type { LoggedEvent, RunLog, RunRecord, RunStatus } from "./run-log.js";
import { openSqliteDatabase, type SqliteDatabase } from "./sqlite-database.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY,
  task TEXT NOT NULL,
  strategy TEXT NOT NULL,
  model TEXT NOT NULL,
  status TEXT NOT NULL,
  answer TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run_events (
  run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
);
CREATE TABLE IF NOT EXISTS run_checkpoints (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  state TEXT NOT NULL,
  saved_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS run_settings (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  settings TEXT NOT NULL
);
`;

type RunRow = {
  id: string;
  task: string;
  strategy: string;
  model: string;
  status: RunStatus;
  answer: string | null;
  created_at: string;
  updated_at: string;
};

/** The run log in the embedded SQLite file (one file, WAL; shared with the plan and task stores). */
export class SqliteRunLog implements RunLog {
  readonly #db: SqliteDatabase;
  readonly #ownsDb: boolean;

  constructor(file: string | SqliteDatabase) {
    this.#ownsDb = typeof file === "string";
    this.#db = typeof file === "string" ? openSqliteDatabase(file) : file;
    this.#db.exec(SCHEMA);
  }

  createRun(run: Omit<RunRecord, "createdAt" | "updatedAt" | "answer" | "status">): RunRecord {
    const now = new Date().toISOString();
    this.#db
      .prepare(
        "INSERT INTO runs (id, task, strategy, model, status, answer, created_at, updated_at) VALUES (?, ?, ?, ?, 'running', NULL, ?, ?)",
      )
      .run(run.id, run.task, run.strategy, run.model, now, now);
    return { ...run, status: "running", answer: null, createdAt: now, updatedAt: now };
  }

  updateRun(id: string, change: { status?: RunStatus; answer?: string | null }): void {
    const current = this.getRun(id);
    if (!current) throw new Error(`No run with id "${id}".`);
    this.#db
      .prepare("UPDATE runs SET status = ?, answer = ?, updated_at = ? WHERE id = ?")
      .run(change.status ?? current.status, change.answer === undefined ? current.answer : change.answer, new Date().toISOString(), id);
  }

  getRun(id: string): RunRecord | undefined {
    const row = this.#db.prepare("SELECT * FROM runs WHERE id = ?").get(id) as RunRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  listRuns(limit = 50): RunRecord[] {
    const rows = this.#db.prepare("SELECT * FROM runs ORDER BY created_at DESC, rowid DESC LIMIT ?").all(limit) as RunRow[];
    return rows.map(toRecord);
  }

  appendEvent(runId: string, event: AgentEvent): number {
    const append = this.#db.transaction(() => {
      const row = this.#db.prepare("SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM run_events WHERE run_id = ?").get(runId) as {
        next: number;
      };
      this.#db.prepare("INSERT INTO run_events (run_id, seq, event) VALUES (?, ?, ?)").run(runId, row.next, JSON.stringify(event));
      return row.next;
    });
    return append.immediate();
  }

  events(runId: string, afterSeq = 0, limit = 1000): LoggedEvent[] {
    const rows = this.#db
      .prepare("SELECT seq, event FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .all(runId, afterSeq, limit) as { seq: number; event: string }[];
    return rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.event) as AgentEvent }));
  }

  saveCheckpoint(runId: string, state: unknown): void {
    this.#db
      .prepare(
        "INSERT INTO run_checkpoints (run_id, state, saved_at) VALUES (?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at",
      )
      .run(runId, JSON.stringify(state), new Date().toISOString());
  }

  loadCheckpoint(runId: string): unknown {
    const row = this.#db.prepare("SELECT state FROM run_checkpoints WHERE run_id = ?").get(runId) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as unknown) : undefined;
  }

  saveSettings(runId: string, settings: unknown): void {
    this.#db
      .prepare("INSERT INTO run_settings (run_id, settings) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET settings = excluded.settings")
      .run(runId, JSON.stringify(settings));
  }

  loadSettings(runId: string): unknown {
    const row = this.#db.prepare("SELECT settings FROM run_settings WHERE run_id = ?").get(runId) as { settings: string } | undefined;
    return row ? (JSON.parse(row.settings) as unknown) : undefined;
  }

  close(): void {
    if (this.#ownsDb) this.#db.close();
  }
}

function toRecord(row: RunRow): RunRecord {
  return {
    id: row.id,
    task: row.task,
    strategy: row.strategy,
    model: row.model,
    status: row.status,
    answer: row.answer,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
