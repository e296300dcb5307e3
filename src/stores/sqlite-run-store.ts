import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import { RunBusyError, RunLeaseLostError, RunNotFoundError, type LoggedEvent, type NewRun, type RunLease, type RunRecord, type RunStatus, type RunStore } from "./run-store.js";
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

// Added after the first release: files written before leases get them on open.
const LEASE_COLUMNS: Record<string, string> = {
  lease_holder: "TEXT",
  lease_token: "INTEGER NOT NULL DEFAULT 0",
  lease_expires: "INTEGER",
  decisions: "TEXT",
};

const COLUMNS = "id, task, strategy, model, status, answer, created_at, updated_at, lease_holder, lease_expires, decisions IS NOT NULL AS decided";

type RunRow = {
  id: string;
  task: string;
  strategy: string;
  model: string;
  status: RunStatus;
  answer: string | null;
  created_at: string;
  updated_at: string;
  lease_holder: string | null;
  lease_expires: number | null;
  decided: number;
};

export type SqliteRunStoreOptions = {
  /** How often to look for changes other processes committed to the file (ms, default 100). */
  pollMs?: number;
};

/**
 * Runs in the embedded SQLite file (one file, WAL; shared with the plan and task stores). Leases use
 * this machine's clock, which every process on the file shares. Changes made through this store are
 * announced at once; changes from other processes are found by watching the file's data version.
 */
export class SqliteRunStore implements RunStore {
  readonly #db: SqliteDatabase;
  readonly #ownsDb: boolean;
  readonly #pollMs: number;
  readonly #listeners = new Set<(runId: string) => void>();
  #watch: { timer: NodeJS.Timeout; version: number; since: string } | undefined;

  constructor(file: string | SqliteDatabase, opts: SqliteRunStoreOptions = {}) {
    this.#ownsDb = typeof file === "string";
    this.#db = typeof file === "string" ? openSqliteDatabase(file) : file;
    this.#pollMs = opts.pollMs ?? 100;
    this.#db.exec(SCHEMA);
    const present = new Set((this.#db.prepare("PRAGMA table_info(runs)").all() as { name: string }[]).map((c) => c.name));
    for (const [name, type] of Object.entries(LEASE_COLUMNS)) {
      if (!present.has(name)) this.#db.exec(`ALTER TABLE runs ADD COLUMN ${name} ${type}`);
    }
  }

  async createRun(run: NewRun, settings: unknown, holder: string, ttlMs: number): Promise<RunLease> {
    const now = new Date().toISOString();
    this.#db.transaction(() => {
      this.#db
        .prepare(
          `INSERT INTO runs (id, task, strategy, model, status, answer, created_at, updated_at, lease_holder, lease_token, lease_expires)
           VALUES (?, ?, ?, ?, 'running', NULL, ?, ?, ?, 1, ?)`,
        )
        .run(run.id, run.task, run.strategy, run.model, now, now, holder, Date.now() + ttlMs);
      this.#db.prepare("INSERT INTO run_settings (run_id, settings) VALUES (?, ?)").run(run.id, JSON.stringify(settings));
    })();
    this.#announce(run.id);
    return { runId: run.id, holder, token: 1 };
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = this.#db.prepare(`SELECT ${COLUMNS} FROM runs WHERE id = ?`).get(id) as RunRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  async listRuns(limit = 50): Promise<RunRecord[]> {
    const rows = this.#db.prepare(`SELECT ${COLUMNS} FROM runs ORDER BY created_at DESC, rowid DESC LIMIT ?`).all(limit) as RunRow[];
    return rows.map(toRecord);
  }

  async acquireLease(runId: string, holder: string, ttlMs: number, replacing?: string): Promise<RunLease> {
    const take = this.#db.transaction(() => {
      const now = Date.now();
      const row = this.#db.prepare("SELECT lease_holder, lease_token, lease_expires FROM runs WHERE id = ?").get(runId) as
        | { lease_holder: string | null; lease_token: number; lease_expires: number | null }
        | undefined;
      if (!row) throw new RunNotFoundError(runId);
      if (row.lease_holder !== null && row.lease_holder !== replacing && (row.lease_expires ?? 0) > now) throw new RunBusyError(runId, row.lease_holder);
      const token = row.lease_token + 1;
      this.#db
        .prepare("UPDATE runs SET lease_holder = ?, lease_token = ?, lease_expires = ?, updated_at = ? WHERE id = ?")
        .run(holder, token, now + ttlMs, new Date(now).toISOString(), runId);
      return { runId, holder, token };
    });
    const lease = take.immediate();
    this.#announce(runId);
    return lease;
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<void> {
    this.#fenced(lease, () => {
      this.#db.prepare("UPDATE runs SET lease_expires = ? WHERE id = ?").run(Date.now() + ttlMs, lease.runId);
    });
  }

  async releaseLease(lease: RunLease): Promise<void> {
    this.#db
      .prepare("UPDATE runs SET lease_holder = NULL, lease_expires = NULL WHERE id = ? AND lease_token = ?")
      .run(lease.runId, lease.token);
    this.#announce(lease.runId);
  }

  async appendEvent(lease: RunLease, event: AgentEvent): Promise<number> {
    const seq = this.#fenced(lease, () => {
      const row = this.#db.prepare("SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM run_events WHERE run_id = ?").get(lease.runId) as { next: number };
      this.#db.prepare("INSERT INTO run_events (run_id, seq, event) VALUES (?, ?, ?)").run(lease.runId, row.next, JSON.stringify(event));
      this.#touch(lease.runId);
      return row.next;
    });
    this.#announce(lease.runId);
    return seq;
  }

  async saveCheckpoint(lease: RunLease, state: unknown): Promise<void> {
    this.#fenced(lease, () => {
      this.#db
        .prepare(
          "INSERT INTO run_checkpoints (run_id, state, saved_at) VALUES (?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at",
        )
        .run(lease.runId, JSON.stringify(state), new Date().toISOString());
    });
  }

  async saveSettings(lease: RunLease, settings: unknown): Promise<void> {
    this.#fenced(lease, () => {
      this.#db
        .prepare("INSERT INTO run_settings (run_id, settings) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET settings = excluded.settings")
        .run(lease.runId, JSON.stringify(settings));
    });
  }

  async updateRun(lease: RunLease, change: { status?: RunStatus; answer?: string | null }): Promise<void> {
    this.#fenced(lease, () => {
      if (change.status !== undefined) this.#db.prepare("UPDATE runs SET status = ? WHERE id = ?").run(change.status, lease.runId);
      if (change.answer !== undefined) this.#db.prepare("UPDATE runs SET answer = ? WHERE id = ?").run(change.answer, lease.runId);
      this.#touch(lease.runId);
    });
    this.#announce(lease.runId);
  }

  async submitDecisions(runId: string, decisions: ApprovalDecisions): Promise<boolean> {
    const { changes } = this.#db
      .prepare("UPDATE runs SET decisions = ?, updated_at = ? WHERE id = ? AND status = 'awaiting-approval' AND decisions IS NULL")
      .run(JSON.stringify(decisions), new Date().toISOString(), runId);
    if (changes > 0) this.#announce(runId);
    return changes > 0;
  }

  async takeDecisions(lease: RunLease): Promise<ApprovalDecisions | undefined> {
    return this.#fenced(lease, () => {
      const row = this.#db.prepare("SELECT decisions FROM runs WHERE id = ?").get(lease.runId) as { decisions: string | null };
      this.#db.prepare("UPDATE runs SET decisions = NULL WHERE id = ?").run(lease.runId);
      return row.decisions === null ? undefined : (JSON.parse(row.decisions) as ApprovalDecisions);
    });
  }

  async resumableRuns(limit = 50): Promise<RunRecord[]> {
    const rows = this.#db
      .prepare(
        `SELECT ${COLUMNS} FROM runs
         WHERE (lease_holder IS NULL OR lease_expires <= ?)
           AND (status = 'running' OR (status = 'awaiting-approval' AND decisions IS NOT NULL))
         ORDER BY created_at, rowid LIMIT ?`,
      )
      .all(Date.now(), limit) as RunRow[];
    return rows.map(toRecord);
  }

  async events(runId: string, afterSeq = 0, limit = 1000): Promise<LoggedEvent[]> {
    const rows = this.#db
      .prepare("SELECT seq, event FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .all(runId, afterSeq, limit) as { seq: number; event: string }[];
    return rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.event) as AgentEvent }));
  }

  async loadCheckpoint(runId: string): Promise<unknown> {
    const row = this.#db.prepare("SELECT state FROM run_checkpoints WHERE run_id = ?").get(runId) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as unknown) : undefined;
  }

  async loadSettings(runId: string): Promise<unknown> {
    const row = this.#db.prepare("SELECT settings FROM run_settings WHERE run_id = ?").get(runId) as { settings: string } | undefined;
    return row ? (JSON.parse(row.settings) as unknown) : undefined;
  }

  async subscribe(listener: (runId: string) => void): Promise<() => Promise<void>> {
    this.#listeners.add(listener);
    this.#watch ??= this.#startWatching();
    return async () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0 && this.#watch) {
        clearInterval(this.#watch.timer);
        this.#watch = undefined;
      }
    };
  }

  async close(): Promise<void> {
    if (this.#watch) clearInterval(this.#watch.timer);
    this.#watch = undefined;
    this.#listeners.clear();
    if (this.#ownsDb && this.#db.open) this.#db.close();
  }

  /** `data_version` changes when another connection commits to the file: then the runs updated since are announced. */
  #startWatching(): { timer: NodeJS.Timeout; version: number; since: string } {
    const version = () => this.#db.pragma("data_version", { simple: true }) as number;
    const watch = {
      version: version(),
      since: new Date().toISOString(),
      timer: setInterval(() => {
        if (!this.#db.open) return;
        const now = version();
        if (now === watch.version) return;
        watch.version = now;
        const rows = this.#db.prepare("SELECT id, updated_at FROM runs WHERE updated_at >= ?").all(watch.since) as { id: string; updated_at: string }[];
        for (const row of rows) {
          if (row.updated_at > watch.since) watch.since = row.updated_at;
          this.#announce(row.id);
        }
      }, this.#pollMs),
    };
    watch.timer.unref();
    return watch;
  }

  #announce(runId: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(runId);
      } catch {
        // A listener's failure is its own; the write it follows has committed.
      }
    }
  }

  #touch(runId: string): void {
    this.#db.prepare("UPDATE runs SET updated_at = ? WHERE id = ?").run(new Date().toISOString(), runId);
  }

  /** Runs `write` in one transaction that first checks the lease is still this one. */
  #fenced<T>(lease: RunLease, write: () => T): T {
    const fenced = this.#db.transaction(() => {
      const row = this.#db.prepare("SELECT lease_token, lease_holder FROM runs WHERE id = ?").get(lease.runId) as
        | { lease_token: number; lease_holder: string | null }
        | undefined;
      if (!row) throw new RunNotFoundError(lease.runId);
      if (row.lease_token !== lease.token) throw new RunLeaseLostError(lease.runId, lease.holder, row.lease_holder);
      return write();
    });
    return fenced.immediate();
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
    lease: row.lease_holder !== null && row.lease_expires !== null ? { holder: row.lease_holder, expiresAt: new Date(row.lease_expires).toISOString() } : null,
    decided: row.decided === 1,
  };
}
