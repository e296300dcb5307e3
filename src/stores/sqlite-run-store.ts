import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import {
  RunBusyError,
  RunLeaseLostError,
  RunNotFoundError,
  type LoggedEvent,
  type RunCheckpoint,
  type NewRun,
  type ClaimedRun,
  type RunLease,
  type RunChange,
  modelUsageOf,
  type RunModelUsage,
  type RunPage,
  type RunQuery,
  type RunRecord,
  runStatusOf,
  type RunStore,
  type UsageSumsRow,
} from "./run-store.js";
import type { SqliteConnection } from "./sqlite-connection.js";
import { openSqliteDatabase, sqliteDatabase, type SqliteDatabase } from "./sqlite-database.js";

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

// Added after the first release: files written before leases (and resume failures) get them on open.
const ADDED_COLUMNS: Record<string, string> = {
  lease_holder: "TEXT",
  lease_token: "INTEGER NOT NULL DEFAULT 0",
  lease_expires: "INTEGER",
  decisions: "TEXT",
  resume_failures: "INTEGER NOT NULL DEFAULT 0",
  resume_error: "TEXT",
  // When a worker may take the run (again, ms): at once (0) unless a resume of it failed.
  resume_after: "INTEGER NOT NULL DEFAULT 0",
  // When the holder took its lease (ms): the viewer shows how long it has held the run.
  lease_taken: "INTEGER",
};

/** A run that needs a driver once nobody holds it: running, or paused with decisions left for it. */
const NEEDS_DRIVER = "(status = 'running' OR (status = 'awaiting-user' AND decisions IS NOT NULL))";

// What a worker's scan (or a claim) reads: the runs that may need a driver, by when they may be tried.
// Statuses earlier versions named otherwise take this version's names (see runStatusOf); the index on the old names goes.
const INDEXES = `
  UPDATE runs SET status = 'final' WHERE status = 'finished';
  UPDATE runs SET status = 'awaiting-user' WHERE status = 'awaiting-approval';
  DROP INDEX IF EXISTS runs_resumable;
  CREATE INDEX IF NOT EXISTS runs_waiting ON runs (resume_after, created_at) WHERE status IN ('running', 'awaiting-user');
  CREATE INDEX IF NOT EXISTS runs_lease_expiry ON runs (lease_expires) WHERE lease_holder IS NOT NULL AND ${NEEDS_DRIVER};`;

const COLUMNS =
  "id, task, strategy, model, status, answer, created_at, updated_at, lease_holder, lease_expires, lease_taken, decisions IS NOT NULL AS decided, resume_failures, resume_error, resume_after";

type RunRow = {
  id: string;
  task: string;
  strategy: string;
  model: string;
  /** As stored: earlier versions wrote some statuses under other names (runStatusOf reads them). */
  status: string;
  answer: string | null;
  created_at: string;
  updated_at: string;
  lease_holder: string | null;
  lease_expires: number | null;
  lease_taken: number | null;
  decided: number;
  resume_failures: number;
  resume_error: string | null;
  resume_after: number;
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
  readonly #claimListeners = new Set<() => void>();
  #watch: { timer: NodeJS.Timeout; version: number; since: string } | undefined;

  constructor(file: string | SqliteConnection, opts: SqliteRunStoreOptions = {}) {
    this.#ownsDb = typeof file === "string";
    this.#db = typeof file === "string" ? openSqliteDatabase(file) : sqliteDatabase(file);
    this.#pollMs = opts.pollMs ?? 100;
    this.#db.exec(SCHEMA);
    const present = new Set((this.#db.prepare("PRAGMA table_info(runs)").all() as { name: string }[]).map((c) => c.name));
    for (const [name, type] of Object.entries(ADDED_COLUMNS)) {
      if (!present.has(name)) this.#db.exec(`ALTER TABLE runs ADD COLUMN ${name} ${type}`);
    }
    this.#db.exec(INDEXES);
  }

  async createRun(run: NewRun, settings: unknown, holder: string, ttlMs: number): Promise<RunLease> {
    const now = new Date().toISOString();
    this.#db.transaction(() => {
      this.#db
        .prepare(
          `INSERT INTO runs (id, task, strategy, model, status, answer, created_at, updated_at, lease_holder, lease_token, lease_expires, lease_taken)
           VALUES (?, ?, ?, ?, 'running', NULL, ?, ?, ?, 1, ?, ?)`,
        )
        .run(run.id, run.task, run.strategy, run.model, now, now, holder, Date.now() + ttlMs, Date.now());
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

  async findRuns(query: RunQuery): Promise<RunPage> {
    // The prefix is compared as it is (no LIKE), so "%" or "_" in it match only themselves.
    const matching = `FROM runs WHERE (@prefix IS NULL OR substr(id, 1, length(@prefix)) = @prefix)
      AND (@statuses IS NULL OR status IN (SELECT value FROM json_each(@statuses)))`;
    const params = { prefix: query.idPrefix ?? null, statuses: query.status ? JSON.stringify(query.status) : null, limit: query.limit };
    const { total } = this.#db.prepare(`SELECT count(*) AS total ${matching}`).get(params) as { total: number };
    const rows = this.#db.prepare(`SELECT ${COLUMNS} ${matching} ORDER BY created_at DESC, rowid DESC LIMIT @limit`).all(params) as RunRow[];
    return { runs: rows.map(toRecord), total };
  }

  async modelUsage(runIds: readonly string[]): Promise<RunModelUsage[]> {
    if (runIds.length === 0) return [];
    const usage = (field: string) => `sum(json_extract(event, '$.usage.${field}'))`;
    const rows = this.#db
      .prepare(
        `SELECT run_id, json_extract(event, '$.model') AS model, count(*) AS calls,
           ${usage("inputTokens")} AS input, ${usage("outputTokens")} AS output,
           ${usage("cacheReadInputTokens")} AS cache_read, ${usage("cacheWriteInputTokens")} AS cache_write
         FROM run_events
         WHERE run_id IN (SELECT value FROM json_each(?)) AND json_extract(event, '$.type') = 'model-end'
         GROUP BY run_id, model`,
      )
      .all(JSON.stringify(runIds)) as UsageSumsRow[];
    return rows.map(modelUsageOf);
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
        .prepare("UPDATE runs SET lease_holder = ?, lease_token = ?, lease_expires = ?, lease_taken = ?, updated_at = ? WHERE id = ?")
        .run(holder, token, now + ttlMs, now, new Date(now).toISOString(), runId);
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
    const released = this.#release(lease);
    this.#announce(lease.runId);
    if (released) this.#announceClaimable();
  }

  /** Lets the run go when the lease is still this one; true when the run, let go, needs a driver. */
  #release(lease: RunLease): boolean {
    const released = this.#db
      .prepare(`UPDATE runs SET lease_holder = NULL, lease_expires = NULL, lease_taken = NULL WHERE id = ? AND lease_token = ? RETURNING ${NEEDS_DRIVER} AS claimable`)
      .get(lease.runId, lease.token) as { claimable: number } | undefined;
    return Boolean(released?.claimable);
  }

  async appendEvents(lease: RunLease, events: readonly AgentEvent[], checkpoint?: RunCheckpoint): Promise<number> {
    const last = this.#fenced(lease, () => {
      const last = this.#lastSeq(lease.runId);
      const insert = this.#db.prepare("INSERT INTO run_events (run_id, seq, event) VALUES (?, ?, ?)");
      events.forEach((event, i) => insert.run(lease.runId, last + i + 1, JSON.stringify(event)));
      if (checkpoint !== undefined) {
        this.#db
          .prepare(
            "INSERT INTO run_checkpoints (run_id, state, saved_at) VALUES (?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET state = excluded.state, saved_at = excluded.saved_at",
          )
          .run(lease.runId, JSON.stringify(checkpoint.state), new Date().toISOString());
      }
      if (events.length > 0) this.#touch(lease.runId);
      return last + events.length;
    });
    if (events.length > 0) this.#announce(lease.runId);
    return last;
  }

  async saveSettings(lease: RunLease, settings: unknown): Promise<void> {
    this.#fenced(lease, () => {
      this.#db
        .prepare("INSERT INTO run_settings (run_id, settings) VALUES (?, ?) ON CONFLICT(run_id) DO UPDATE SET settings = excluded.settings")
        .run(lease.runId, JSON.stringify(settings));
    });
  }

  async updateRun(lease: RunLease, change: RunChange): Promise<void> {
    const claimable = this.#fenced(lease, () => {
      if (change.status !== undefined) this.#db.prepare("UPDATE runs SET status = ? WHERE id = ?").run(change.status, lease.runId);
      if (change.answer !== undefined) this.#db.prepare("UPDATE runs SET answer = ? WHERE id = ?").run(change.answer, lease.runId);
      if (change.resumeFailure === null) {
        this.#db.prepare("UPDATE runs SET resume_failures = 0, resume_error = NULL, resume_after = 0 WHERE id = ?").run(lease.runId);
      } else if (change.resumeFailure) {
        this.#db
          .prepare("UPDATE runs SET resume_failures = resume_failures + 1, resume_error = ?, resume_after = ? WHERE id = ?")
          .run(change.resumeFailure.error, Date.now() + change.resumeFailure.retryInMs, lease.runId);
      }
      this.#touch(lease.runId);
      return change.release === true && this.#release(lease);
    });
    this.#announce(lease.runId);
    if (claimable) this.#announceClaimable();
  }

  async submitDecisions(runId: string, decisions: ApprovalDecisions): Promise<boolean> {
    const { changes } = this.#db
      .prepare("UPDATE runs SET decisions = ?, updated_at = ? WHERE id = ? AND status = 'awaiting-user' AND decisions IS NULL")
      .run(JSON.stringify(decisions), new Date().toISOString(), runId);
    if (changes > 0) this.#announce(runId);
    if (changes > 0) this.#announceClaimable();
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
    const now = Date.now();
    const rows = this.#db
      .prepare(
        `SELECT ${COLUMNS} FROM runs
         WHERE status IN ('running', 'awaiting-user') AND resume_after <= ?
           AND (lease_holder IS NULL OR lease_expires <= ?)
           AND (status = 'running' OR decisions IS NOT NULL)
         ORDER BY resume_after, created_at, rowid LIMIT ?`,
      )
      .all(now, now, limit) as RunRow[];
    return rows.map(toRecord);
  }

  async claimRun(holder: string, ttlMs: number, passOver: readonly string[] = []): Promise<ClaimedRun | undefined> {
    // One immediate transaction: a claimer in another process waits for the file's write lock, then sees this one's lease.
    const claim = this.#db.transaction(() => {
      const now = Date.now();
      const free = `resume_after <= @now AND ${NEEDS_DRIVER} AND id NOT IN (SELECT value FROM json_each(@passOver))`;
      const row = this.#db
        .prepare(
          `SELECT id FROM (
             SELECT id, resume_after, created_at, rowid AS n FROM runs WHERE lease_holder IS NULL AND ${free}
             UNION ALL
             SELECT id, resume_after, created_at, rowid AS n FROM runs WHERE lease_holder IS NOT NULL AND lease_expires <= @now AND ${free})
           ORDER BY resume_after, created_at, n LIMIT 1`,
        )
        .get({ now, passOver: JSON.stringify(passOver) }) as { id: string } | undefined;
      if (!row) return undefined;
      const { lease_token: token } = this.#db
        .prepare("UPDATE runs SET lease_holder = ?, lease_token = lease_token + 1, lease_expires = ?, lease_taken = ?, updated_at = ? WHERE id = ? RETURNING lease_token")
        .get(holder, now + ttlMs, now, new Date(now).toISOString(), row.id) as { lease_token: number };
      const run = this.#db.prepare(`SELECT ${COLUMNS} FROM runs WHERE id = ?`).get(row.id) as RunRow;
      return { run: toRecord(run), lease: { runId: row.id, holder, token } };
    });
    const claimed = claim.immediate();
    if (!claimed) return undefined;
    this.#announce(claimed.run.id);
    // Read after the write lock is let go: the lease just taken keeps anyone else from changing these.
    const id = claimed.run.id;
    return { ...claimed, saved: { settings: this.#settings(id), checkpoint: this.#checkpoint(id), lastSeq: this.#lastSeq(id) } };
  }

  async nextClaimInMs(): Promise<number | undefined> {
    const now = Date.now();
    const { next } = this.#db
      .prepare(
        `SELECT min(at) AS next FROM (
           SELECT min(lease_expires) AS at FROM runs WHERE lease_holder IS NOT NULL AND ${NEEDS_DRIVER}
           UNION ALL
           SELECT min(resume_after) FROM runs WHERE status IN ('running', 'awaiting-user') AND resume_after > ?)`,
      )
      .get(now) as { next: number | null };
    return next === null ? undefined : Math.max(0, next - now);
  }

  async events(runId: string, afterSeq = 0, limit = 1000): Promise<LoggedEvent[]> {
    const rows = this.#db
      .prepare("SELECT seq, event FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .all(runId, afterSeq, limit) as { seq: number; event: string }[];
    return rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.event) as AgentEvent }));
  }

  async loadCheckpoint(runId: string): Promise<unknown> {
    return this.#checkpoint(runId);
  }

  async loadSettings(runId: string): Promise<unknown> {
    return this.#settings(runId);
  }

  #checkpoint(runId: string): unknown {
    const row = this.#db.prepare("SELECT state FROM run_checkpoints WHERE run_id = ?").get(runId) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as unknown) : undefined;
  }

  /** The sequence number of the run's last event (0: none logged). */
  #lastSeq(runId: string): number {
    return (this.#db.prepare("SELECT COALESCE(MAX(seq), 0) AS last FROM run_events WHERE run_id = ?").get(runId) as { last: number }).last;
  }

  #settings(runId: string): unknown {
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

  /**
   * Changes made here that free a run are announced at once; a commit from another process may have
   * freed one, so the file's watch announces each it sees (at most once a `pollMs`).
   */
  async subscribeClaimable(listener: () => void): Promise<() => Promise<void>> {
    this.#claimListeners.add(listener);
    // Keeps the file watched while the listener is on.
    const offChanges = await this.subscribe(() => undefined);
    return async () => {
      this.#claimListeners.delete(listener);
      await offChanges();
    };
  }

  async close(): Promise<void> {
    if (this.#watch) clearInterval(this.#watch.timer);
    this.#watch = undefined;
    this.#listeners.clear();
    this.#claimListeners.clear();
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
        this.#announceClaimable();
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

  #announceClaimable(): void {
    for (const listener of this.#claimListeners) {
      try {
        listener();
      } catch {
        // As for #announce: the listener's failure is its own.
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
    status: runStatusOf(row.status),
    answer: row.answer,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lease:
      row.lease_holder !== null && row.lease_expires !== null
        ? { holder: row.lease_holder, takenAt: row.lease_taken === null ? row.updated_at : new Date(row.lease_taken).toISOString(), expiresAt: new Date(row.lease_expires).toISOString() }
        : null,
    decided: row.decided === 1,
    ...(row.resume_failures > 0
      ? { resumeFailures: { count: row.resume_failures, lastError: row.resume_error ?? "", retryAt: new Date(row.resume_after).toISOString() } }
      : {}),
  };
}
