import pg from "pg";
import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import { RunBusyError, RunLeaseLostError, RunNotFoundError, type LoggedEvent, type NewRun, type RunLease, type RunRecord, type RunStatus, type RunStore } from "./run-store.js";
import { createSchemaIfMissing } from "./postgres-transaction.js";

export type PostgresRunStoreOptions = {
  /** A pool to share with the rest of the application; otherwise one is made from `connectionString` (or the PG* variables). */
  pool?: pg.Pool;
  connectionString?: string;
};

/** Every change to any run is announced here, with the run's id as the payload. */
export const RUNS_CHANNEL = "stepwise_runs";
// Serializes table creation when many processes start on a fresh database at once.
const SCHEMA_LOCK = 7_311_005;
// Checkpoints and settings live on the run's row: one conditional UPDATE then both checks the lease and writes.
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS stepwise_runs (
    id text PRIMARY KEY,
    task text NOT NULL,
    strategy text NOT NULL,
    model text NOT NULL,
    status text NOT NULL,
    answer text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    settings jsonb,
    checkpoint jsonb,
    decisions jsonb,
    last_seq bigint NOT NULL DEFAULT 0,
    lease_holder text,
    lease_token bigint NOT NULL DEFAULT 0,
    lease_expires timestamptz
  );
  CREATE TABLE IF NOT EXISTS stepwise_run_events (
    run_id text NOT NULL REFERENCES stepwise_runs (id) ON DELETE CASCADE,
    seq bigint NOT NULL,
    event jsonb NOT NULL,
    PRIMARY KEY (run_id, seq)
  );
  CREATE INDEX IF NOT EXISTS stepwise_runs_created ON stepwise_runs (created_at DESC);
`;
const COLUMNS = `id, task, strategy, model, status, answer, created_at, updated_at, lease_holder, lease_expires, decisions IS NOT NULL AS decided`;
const NOTIFY = `pg_notify('${RUNS_CHANNEL}', $1::text)`;

type RunRow = {
  id: string;
  task: string;
  strategy: string;
  model: string;
  status: RunStatus;
  answer: string | null;
  created_at: Date;
  updated_at: Date;
  lease_holder: string | null;
  lease_expires: Date | null;
  decided: boolean;
};

/**
 * Runs shared through PostgreSQL by every process and machine that drives or watches them. Leases
 * use the server's clock, so machines need not agree on the time. Every write is one statement that
 * checks the lease token and announces the change with NOTIFY on `RUNS_CHANNEL` when it commits.
 */
export class PostgresRunStore implements RunStore {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  #ready: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(opts: PostgresRunStoreOptions) {
    this.#pool = opts.pool ?? new pg.Pool(opts.connectionString ? { connectionString: opts.connectionString } : {});
    this.#ownsPool = !opts.pool;
    // An idle connection that drops emits 'error', which would end the process unheard; the pool has discarded it already.
    if (this.#ownsPool) this.#pool.on("error", () => undefined);
  }

  async createRun(run: NewRun, settings: unknown, holder: string, ttlMs: number): Promise<RunLease> {
    await this.#query(
      `WITH created AS (
         INSERT INTO stepwise_runs (id, task, strategy, model, status, settings, lease_holder, lease_token, lease_expires)
         VALUES ($1, $2, $3, $4, 'running', $5, $6, 1, now() + make_interval(secs => $7::float8 / 1000))
         RETURNING id)
       SELECT ${NOTIFY} FROM created`,
      [run.id, run.task, run.strategy, run.model, JSON.stringify(settings), holder, ttlMs],
    );
    return { runId: run.id, holder, token: 1 };
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const { rows } = await this.#query<RunRow>(`SELECT ${COLUMNS} FROM stepwise_runs WHERE id = $1`, [id]);
    return rows[0] && toRecord(rows[0]);
  }

  async listRuns(limit = 50): Promise<RunRecord[]> {
    const { rows } = await this.#query<RunRow>(`SELECT ${COLUMNS} FROM stepwise_runs ORDER BY created_at DESC, id LIMIT $1`, [limit]);
    return rows.map(toRecord);
  }

  async acquireLease(runId: string, holder: string, ttlMs: number, replacing?: string): Promise<RunLease> {
    // One conditional UPDATE: of several racing takers, the row lock lets exactly one match.
    const { rows } = await this.#query<{ lease_token: string }>(
      `WITH taken AS (
         UPDATE stepwise_runs SET lease_holder = $2, lease_token = lease_token + 1,
           lease_expires = now() + make_interval(secs => $3::float8 / 1000), updated_at = now()
         WHERE id = $1 AND (lease_holder IS NULL OR lease_expires <= now() OR lease_holder = $4)
         RETURNING lease_token)
       SELECT lease_token, ${NOTIFY} FROM taken`,
      [runId, holder, ttlMs, replacing ?? null],
    );
    const taken = rows[0];
    if (taken) return { runId, holder, token: Number(taken.lease_token) };
    const current = await this.#holder(runId);
    throw new RunBusyError(runId, current ?? "another process");
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<void> {
    await this.#fenced(
      lease,
      `UPDATE stepwise_runs SET lease_expires = now() + make_interval(secs => $3::float8 / 1000)
       WHERE id = $1 AND lease_token = $2 RETURNING 1`,
      [ttlMs],
    );
  }

  async releaseLease(lease: RunLease): Promise<void> {
    await this.#query(
      `WITH released AS (
         UPDATE stepwise_runs SET lease_holder = NULL, lease_expires = NULL WHERE id = $1 AND lease_token = $2 RETURNING id)
       SELECT ${NOTIFY} FROM released`,
      [lease.runId, lease.token],
    );
  }

  async appendEvent(lease: RunLease, event: AgentEvent): Promise<number> {
    // The run row's counter numbers the events; its row lock orders concurrent appends.
    const rows = await this.#fenced<{ seq: string }>(
      lease,
      `WITH counted AS (
         UPDATE stepwise_runs SET last_seq = last_seq + 1, updated_at = now()
         WHERE id = $1 AND lease_token = $2 RETURNING last_seq),
       inserted AS (
         INSERT INTO stepwise_run_events (run_id, seq, event) SELECT $1, last_seq, $3 FROM counted RETURNING seq)
       SELECT seq, pg_notify('${RUNS_CHANNEL}', $1::text) FROM inserted`,
      [JSON.stringify(event)],
    );
    return Number(rows[0]?.seq);
  }

  async saveCheckpoint(lease: RunLease, state: unknown): Promise<void> {
    await this.#fenced(lease, "UPDATE stepwise_runs SET checkpoint = $3 WHERE id = $1 AND lease_token = $2 RETURNING 1", [JSON.stringify(state)]);
  }

  async saveSettings(lease: RunLease, settings: unknown): Promise<void> {
    await this.#fenced(lease, "UPDATE stepwise_runs SET settings = $3 WHERE id = $1 AND lease_token = $2 RETURNING 1", [JSON.stringify(settings)]);
  }

  async updateRun(lease: RunLease, change: { status?: RunStatus; answer?: string | null }): Promise<void> {
    await this.#fenced(
      lease,
      `WITH changed AS (
         UPDATE stepwise_runs SET status = COALESCE($3, status), answer = CASE WHEN $4 THEN $5 ELSE answer END, updated_at = now()
         WHERE id = $1 AND lease_token = $2 RETURNING id)
       SELECT pg_notify('${RUNS_CHANNEL}', $1::text) FROM changed`,
      [change.status ?? null, change.answer !== undefined, change.answer ?? null],
    );
  }

  async submitDecisions(runId: string, decisions: ApprovalDecisions): Promise<boolean> {
    const { rows } = await this.#query(
      `WITH decided AS (
         UPDATE stepwise_runs SET decisions = $2, updated_at = now()
         WHERE id = $1 AND status = 'awaiting-approval' AND decisions IS NULL RETURNING id)
       SELECT pg_notify('${RUNS_CHANNEL}', $1::text) FROM decided`,
      [runId, JSON.stringify(decisions)],
    );
    return rows.length > 0;
  }

  async takeDecisions(lease: RunLease): Promise<ApprovalDecisions | undefined> {
    const rows = await this.#fenced<{ decisions: ApprovalDecisions | null }>(
      lease,
      `UPDATE stepwise_runs r SET decisions = NULL FROM (SELECT decisions FROM stepwise_runs WHERE id = $1 FOR UPDATE) old
       WHERE r.id = $1 AND r.lease_token = $2 RETURNING old.decisions`,
      [],
    );
    return rows[0]?.decisions ?? undefined;
  }

  async resumableRuns(limit = 50): Promise<RunRecord[]> {
    const { rows } = await this.#query<RunRow>(
      `SELECT ${COLUMNS} FROM stepwise_runs
       WHERE (lease_holder IS NULL OR lease_expires <= now())
         AND (status = 'running' OR (status = 'awaiting-approval' AND decisions IS NOT NULL))
       ORDER BY created_at, id LIMIT $1`,
      [limit],
    );
    return rows.map(toRecord);
  }

  async events(runId: string, afterSeq = 0, limit = 1000): Promise<LoggedEvent[]> {
    const { rows } = await this.#query<{ seq: string; event: AgentEvent }>(
      "SELECT seq, event FROM stepwise_run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
      [runId, afterSeq, limit],
    );
    return rows.map((row) => ({ seq: Number(row.seq), event: row.event }));
  }

  async loadCheckpoint(runId: string): Promise<unknown> {
    const { rows } = await this.#query<{ checkpoint: unknown }>("SELECT checkpoint FROM stepwise_runs WHERE id = $1", [runId]);
    return rows[0]?.checkpoint ?? undefined;
  }

  async loadSettings(runId: string): Promise<unknown> {
    const { rows } = await this.#query<{ settings: unknown }>("SELECT settings FROM stepwise_runs WHERE id = $1", [runId]);
    return rows[0]?.settings ?? undefined;
  }

  /** LISTENs on a connection of its own; if that connection breaks, it listens again on a new one. */
  async subscribe(listener: (runId: string) => void): Promise<() => Promise<void>> {
    await this.#init();
    let stopped = false;
    let client: pg.PoolClient | undefined;
    const onNotification = (message: pg.Notification) => {
      if (message.channel !== RUNS_CHANNEL || !message.payload) return;
      try {
        listener(message.payload);
      } catch {
        // The listener's failure is its own: it must not stop the notifications.
      }
    };
    const listen = async (): Promise<void> => {
      const connection = await this.#pool.connect();
      connection.on("notification", onNotification);
      connection.once("error", (error) => {
        connection.off("notification", onNotification);
        connection.release(error);
        if (client === connection) client = undefined;
        // Whatever was announced meanwhile is lost: tell the listener to re-read, then listen again.
        if (!stopped) void listen().then(() => listener("*"), () => undefined);
      });
      await connection.query(`LISTEN ${RUNS_CHANNEL}`);
      client = connection;
    };
    await listen();
    return async () => {
      stopped = true;
      const connection = client;
      client = undefined;
      if (!connection) return;
      connection.off("notification", onNotification);
      try {
        await connection.query(`UNLISTEN ${RUNS_CHANNEL}`);
        connection.release();
      } catch (error) {
        connection.release(error instanceof Error ? error : new Error(String(error)));
      }
    };
  }

  /** Ends the store's own pool (a shared pool stays open); a second call is harmless. */
  close(): Promise<void> {
    this.#closing ??= this.#ownsPool ? this.#pool.end() : Promise.resolve();
    return this.#closing;
  }

  async #holder(runId: string): Promise<string | null | undefined> {
    const { rows } = await this.#pool.query<{ lease_holder: string | null }>("SELECT lease_holder FROM stepwise_runs WHERE id = $1", [runId]);
    if (!rows[0]) throw new RunNotFoundError(runId);
    return rows[0].lease_holder;
  }

  /** A write that matched no row tells why: no such run, or the lease was taken over. */
  async #fenced<R extends pg.QueryResultRow>(lease: RunLease, sql: string, extra: unknown[]): Promise<R[]> {
    const { rows } = await this.#query<R>(sql, [lease.runId, lease.token, ...extra]);
    if (rows.length > 0) return rows;
    throw new RunLeaseLostError(lease.runId, lease.holder, (await this.#holder(lease.runId)) ?? null);
  }

  async #query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    await this.#init();
    return this.#pool.query<R>(sql, values);
  }

  #init(): Promise<void> {
    this.#ready ??= createSchemaIfMissing(this.#pool, { lock: SCHEMA_LOCK, marker: "stepwise_runs_created", ddl: SCHEMA }).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
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
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    lease: row.lease_holder !== null && row.lease_expires !== null ? { holder: row.lease_holder, expiresAt: row.lease_expires.toISOString() } : null,
    decided: row.decided,
  };
}
