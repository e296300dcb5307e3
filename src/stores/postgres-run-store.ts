import { createHash } from "node:crypto";
import pg from "pg";
import type { PostgresPool } from "./postgres-pool.js";
import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import {
  modelUsageOf,
  RunBusyError,
  RunLeaseLostError,
  RunNotFoundError,
  type LoggedEvent,
  type RunCheckpoint,
  type NewRun,
  type ClaimedRun,
  type RunLease,
  type RunChange,
  type RunModelUsage,
  type RunPage,
  type RunQuery,
  type RunRecord,
  runStatusOf,
  type RunStore,
  type UsageSumsRow,
} from "./run-store.js";
import { MAX_NOTIFICATION_PAYLOAD, NotificationOutbox } from "./postgres-notification-outbox.js";
import { createSchemaIfMissing, pgPool } from "./postgres-transaction.js";
import { WriteBatcher, type BatchedWrite } from "./write-batcher.js";

export type PostgresRunStoreOptions = {
  /** A pool to share with the rest of the application; otherwise one is made from `connectionString` (or the PG* variables). */
  pool?: PostgresPool;
  connectionString?: string;
};

/** Every committed change to any run is announced here: the payload is a JSON array of the ids of the runs changed since the last one. */
export const RUNS_CHANNEL = "stepwise_runs";
/**
 * Announced when a run may have become free to claim (its lease let go, decisions left for it), with
 * the schema as the payload: workers on another schema of the database are not woken.
 */
export const CLAIMABLE_CHANNEL = "stepwise_runs_claimable";
/** A run that needs a driver once nobody holds it: running, or paused with decisions left for it. */
const NEEDS_DRIVER = "(status = 'running' OR (status = 'awaiting-user' AND decisions IS NOT NULL))";
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
  -- Added after the first release (a database made before gets them): resumes that failed, and when to try again.
  ALTER TABLE stepwise_runs ADD COLUMN IF NOT EXISTS resume_failures integer NOT NULL DEFAULT 0;
  ALTER TABLE stepwise_runs ADD COLUMN IF NOT EXISTS resume_error text;
  -- When a worker may take the run (again): at once ('-infinity') unless a resume of it failed.
  ALTER TABLE stepwise_runs ADD COLUMN IF NOT EXISTS resume_after timestamptz NOT NULL DEFAULT '-infinity';
  -- Statuses earlier versions named otherwise take this version's names (see runStatusOf); the index on the old names goes.
  UPDATE stepwise_runs SET status = 'final' WHERE status = 'finished';
  UPDATE stepwise_runs SET status = 'awaiting-user' WHERE status = 'awaiting-approval';
  DROP INDEX IF EXISTS stepwise_runs_resumable;
  -- What a worker's scan (or a claim) reads: the runs that may need a driver, by when they may be tried.
  CREATE INDEX IF NOT EXISTS stepwise_runs_waiting ON stepwise_runs (resume_after, created_at)
    WHERE status IN ('running', 'awaiting-user');
  -- Added for fleets of workers: when the holder took its lease (the viewer shows how long it has held the run),
  -- and the two indexes a claim reads: runs nobody holds that need a driver, oldest first, and held leases by expiry.
  ALTER TABLE stepwise_runs ADD COLUMN IF NOT EXISTS lease_taken timestamptz;
  CREATE INDEX IF NOT EXISTS stepwise_runs_unleased ON stepwise_runs (resume_after, created_at)
    WHERE lease_holder IS NULL AND ${NEEDS_DRIVER};
  CREATE INDEX IF NOT EXISTS stepwise_runs_lease_expiry ON stepwise_runs (lease_expires)
    WHERE lease_holder IS NOT NULL AND ${NEEDS_DRIVER};
`;
const COLUMNS = `id, task, strategy, model, status, answer, created_at, updated_at, lease_holder, lease_expires, lease_taken, decisions IS NOT NULL AS decided,
  resume_failures, resume_error, resume_after`;
const LEASE_FOR = (ttl: string) => `lease_expires = now() + make_interval(secs => ${ttl}::float8 / 1000), lease_taken = now()`;
/** Wakes idle workers of this schema; sent in the statement that freed the run (rare: a hand-back, a decision). */
const NOTIFY_CLAIMABLE = `pg_notify('${CLAIMABLE_CHANNEL}', current_schema())`;
/** How long committed changes to runs wait to share one NOTIFY on RUNS_CHANNEL. */
const ANNOUNCE_BATCH_MS = 20;

/** The most writes of each kind in one statement: appends carry checkpoints, so fewer of them. */
const APPEND_BATCH_MAX = 64;
const RENEWAL_BATCH_MAX = 1000;
const CLAIM_BATCH_MAX = 256;

/** One run's append, waiting for its batch. */
type Append = { token: number; events: readonly AgentEvent[]; checkpoint: RunCheckpoint | undefined };

/** A claim for a run, waiting for its batch. */
type ClaimAsk = { holder: string; ttlMs: number; passOver: readonly string[] };

/** One run's lease renewal, waiting for its batch. */
type Renewal = { token: number; ttlMs: number };

type RunRow = {
  id: string;
  task: string;
  strategy: string;
  model: string;
  /** As stored: earlier versions wrote some statuses under other names (runStatusOf reads them). */
  status: string;
  answer: string | null;
  created_at: Date;
  updated_at: Date;
  lease_holder: string | null;
  lease_expires: Date | null;
  lease_taken: Date | null;
  decided: boolean;
  resume_failures: number;
  resume_error: string | null;
  resume_after: Date;
};

/**
 * Runs shared through PostgreSQL by every process and machine that drives or watches them. Leases
 * use the server's clock, so machines need not agree on the time. Every write is one statement that
 * checks the lease token; once it commits, the change is announced on `RUNS_CHANNEL` (the runs changed
 * in the last few milliseconds share one NOTIFY: see NotificationOutbox).
 */
export class PostgresRunStore implements RunStore {
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #outbox: NotificationOutbox;
  readonly #appends = batcher<Append, number>((writes) => this.#appendBatch(writes), APPEND_BATCH_MAX);
  readonly #claims = batcher<ClaimAsk, ClaimedRun>((asks) => this.#claimBatch(asks), CLAIM_BATCH_MAX);
  #claimsMade = 0;
  readonly #renewals = batcher<Renewal, true>((writes) => this.#renewBatch(writes), RENEWAL_BATCH_MAX);
  #ready: Promise<void> | undefined;
  #closing: Promise<void> | undefined;

  constructor(opts: PostgresRunStoreOptions) {
    this.#pool = (opts.pool ? pgPool(opts.pool) : undefined) ?? new pg.Pool(opts.connectionString ? { connectionString: opts.connectionString } : {});
    this.#ownsPool = !opts.pool;
    this.#outbox = new NotificationOutbox(this.#pool, RUNS_CHANNEL, ANNOUNCE_BATCH_MS);
    // An idle connection that drops emits 'error', which would end the process unheard; the pool has discarded it already.
    if (this.#ownsPool) this.#pool.on("error", () => undefined);
  }

  async createRun(run: NewRun, settings: unknown, holder: string, ttlMs: number): Promise<RunLease> {
    await this.#query(
      `INSERT INTO stepwise_runs (id, task, strategy, model, status, settings, lease_holder, lease_token, lease_expires, lease_taken)
       VALUES ($1, $2, $3, $4, 'running', $5, $6, 1, now() + make_interval(secs => $7::float8 / 1000), now())`,
      [run.id, run.task, run.strategy, run.model, JSON.stringify(settings), holder, ttlMs],
    );
    this.#announce(run.id);
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

  async findRuns(query: RunQuery): Promise<RunPage> {
    // The prefix is compared as it is (no LIKE), so "%" or "_" in it match only themselves.
    const matching = "FROM stepwise_runs WHERE ($1::text IS NULL OR left(id, length($1)) = $1) AND ($2::text[] IS NULL OR status = ANY($2))";
    const params = [query.idPrefix ?? null, query.status ? [...query.status] : null];
    const count = await this.#query<{ total: number }>(`SELECT count(*)::int AS total ${matching}`, params);
    const { rows } = await this.#query<RunRow>(`SELECT ${COLUMNS} ${matching} ORDER BY created_at DESC, id LIMIT $3`, [...params, query.limit]);
    return { runs: rows.map(toRecord), total: count.rows[0]?.total ?? 0 };
  }

  async modelUsage(runIds: readonly string[]): Promise<RunModelUsage[]> {
    if (runIds.length === 0) return [];
    const usage = (field: string) => `sum((event->'usage'->>'${field}')::bigint)`;
    const { rows } = await this.#query<UsageSumsRow>(
      `SELECT run_id, event->>'model' AS model, count(*) AS calls,
         ${usage("inputTokens")} AS input, ${usage("outputTokens")} AS output,
         ${usage("cacheReadInputTokens")} AS cache_read, ${usage("cacheWriteInputTokens")} AS cache_write
       FROM stepwise_run_events
       WHERE run_id = ANY($1) AND event->>'type' = 'model-end'
       GROUP BY run_id, event->>'model'`,
      [[...runIds]],
    );
    return rows.map(modelUsageOf);
  }

  async acquireLease(runId: string, holder: string, ttlMs: number, replacing?: string): Promise<RunLease> {
    // One conditional UPDATE: of several racing takers, the row lock lets exactly one match.
    const { rows } = await this.#query<{ lease_token: string }>(
      `UPDATE stepwise_runs SET lease_holder = $2, lease_token = lease_token + 1, ${LEASE_FOR("$3")}, updated_at = now()
       WHERE id = $1 AND (lease_holder IS NULL OR lease_expires <= now() OR lease_holder = $4)
       RETURNING lease_token`,
      [runId, holder, ttlMs, replacing ?? null],
    );
    const taken = rows[0];
    if (taken) {
      this.#announce(runId);
      return { runId, holder, token: Number(taken.lease_token) };
    }
    const current = await this.#holder(runId);
    throw new RunBusyError(runId, current ?? "another process");
  }

  async renewLease(lease: RunLease, ttlMs: number): Promise<void> {
    if (!(await this.#renewals.write(lease.runId, { token: lease.token, ttlMs }))) throw await this.#leaseLost(lease);
  }

  /** Renews several runs' leases in one statement; a run whose lease token no longer matches is left out. */
  async #renewBatch(writes: readonly BatchedWrite<Renewal>[]): Promise<Map<string, true>> {
    const { rows } = await this.#query<{ id: string }>(
      `UPDATE stepwise_runs SET lease_expires = now() + make_interval(secs => ($1::jsonb -> id ->> 'ttlMs')::float8 / 1000)
       WHERE id = ANY($2::text[]) AND lease_token = ($1::jsonb -> id ->> 'token')::bigint RETURNING id`,
      batchParams(writes),
    );
    return new Map(rows.map((row) => [row.id, true]));
  }

  async releaseLease(lease: RunLease): Promise<void> {
    const { rows } = await this.#query(
      `WITH released AS (
         UPDATE stepwise_runs SET lease_holder = NULL, lease_expires = NULL, lease_taken = NULL WHERE id = $1 AND lease_token = $2
         RETURNING id, ${NEEDS_DRIVER} AS claimable)
       SELECT CASE WHEN claimable THEN ${NOTIFY_CLAIMABLE} END FROM released`,
      [lease.runId, lease.token],
    );
    if (rows.length > 0) this.#announce(lease.runId);
  }

  async appendEvents(lease: RunLease, events: readonly AgentEvent[], checkpoint?: RunCheckpoint): Promise<number> {
    const last = await this.#appends.write(lease.runId, { token: lease.token, events, checkpoint });
    if (last === undefined) throw await this.#leaseLost(lease);
    this.#announce(lease.runId);
    return last;
  }

  /**
   * Appends for several runs in one statement, so one commit: each run's row counter numbers its events
   * (the row lock orders appends to one run) and takes its checkpoint in the same update. A run whose
   * lease token no longer matches is left out of the result.
   */
  async #appendBatch(writes: readonly BatchedWrite<Append>[]): Promise<Map<string, number>> {
    const { rows } = await this.#query<{ id: string; last_seq: string }>(
      `WITH counted AS (
         UPDATE stepwise_runs SET last_seq = last_seq + jsonb_array_length($1::jsonb -> id -> 'events'), updated_at = now(),
           checkpoint = CASE WHEN ($1::jsonb -> id ->> 'saves')::boolean THEN $1::jsonb -> id -> 'checkpoint' ELSE checkpoint END
         WHERE id = ANY($2::text[]) AND lease_token = ($1::jsonb -> id ->> 'token')::bigint
         RETURNING id, last_seq),
       inserted AS (
         INSERT INTO stepwise_run_events (run_id, seq, event)
         SELECT counted.id, counted.last_seq - jsonb_array_length(logged.events) + appended.n, appended.event
         FROM counted, LATERAL (SELECT $1::jsonb -> counted.id -> 'events' AS events) logged,
           jsonb_array_elements(logged.events) WITH ORDINALITY AS appended(event, n))
       SELECT id, last_seq FROM counted`,
      batchParams(writes, ({ token, events, checkpoint }) => ({ token, events, saves: checkpoint !== undefined, checkpoint: checkpoint?.state })),
    );
    return new Map(rows.map((row) => [row.id, Number(row.last_seq)]));
  }

  async saveSettings(lease: RunLease, settings: unknown): Promise<void> {
    await this.#fenced(lease, "UPDATE stepwise_runs SET settings = $3 WHERE id = $1 AND lease_token = $2 RETURNING 1", [JSON.stringify(settings)]);
  }

  async updateRun(lease: RunLease, change: RunChange): Promise<void> {
    const failure = change.resumeFailure;
    // Released, a run that still needs a driver (handed back, or decided while paused) wakes idle workers.
    await this.#fenced(
      lease,
      `WITH changed AS (
         UPDATE stepwise_runs SET status = COALESCE($3, status), answer = CASE WHEN $4 THEN $5 ELSE answer END, updated_at = now(),
           resume_failures = CASE $6 WHEN 'clear' THEN 0 WHEN 'count' THEN resume_failures + 1 ELSE resume_failures END,
           resume_error = CASE $6 WHEN 'clear' THEN NULL WHEN 'count' THEN $7 ELSE resume_error END,
           resume_after = CASE $6 WHEN 'clear' THEN '-infinity' WHEN 'count' THEN now() + make_interval(secs => $8::float8 / 1000) ELSE resume_after END,
           lease_holder = CASE WHEN $9 THEN NULL ELSE lease_holder END,
           lease_expires = CASE WHEN $9 THEN NULL ELSE lease_expires END,
           lease_taken = CASE WHEN $9 THEN NULL ELSE lease_taken END
         WHERE id = $1 AND lease_token = $2 RETURNING $9::boolean AND ${NEEDS_DRIVER} AS claimable)
       SELECT CASE WHEN claimable THEN ${NOTIFY_CLAIMABLE} END FROM changed`,
      [
        change.status ?? null,
        change.answer !== undefined,
        change.answer ?? null,
        failure === null ? "clear" : failure ? "count" : "keep",
        failure?.error ?? null,
        failure?.retryInMs ?? 0,
        change.release === true,
      ],
    );
    this.#announce(lease.runId);
  }

  async submitDecisions(runId: string, decisions: ApprovalDecisions): Promise<boolean> {
    const { rows } = await this.#query(
      `WITH decided AS (
         UPDATE stepwise_runs SET decisions = $2, updated_at = now()
         WHERE id = $1 AND status = 'awaiting-user' AND decisions IS NULL RETURNING lease_holder)
       SELECT CASE WHEN lease_holder IS NULL THEN ${NOTIFY_CLAIMABLE} END FROM decided`,
      [runId, JSON.stringify(decisions)],
    );
    if (rows.length === 0) return false;
    this.#announce(runId);
    return true;
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
       WHERE status IN ('running', 'awaiting-user') AND resume_after <= now()
         AND (lease_holder IS NULL OR lease_expires <= now())
         AND (status = 'running' OR decisions IS NOT NULL)
       ORDER BY resume_after, created_at, id LIMIT $1`,
      [limit],
    );
    return rows.map(toRecord);
  }

  claimRun(holder: string, ttlMs: number, passOver: readonly string[] = []): Promise<ClaimedRun | undefined> {
    // Each claim its own key: the claims a worker makes at once (its free slots) share one statement.
    return this.#claims.write(String(this.#claimsMade++), { holder, ttlMs, passOver });
  }

  /**
   * Claims a run for each ask, alike asks (usually all: one worker's) in one statement. Per statement
   * two lists of candidates, each the first of its index that no other claimer has locked: the oldest
   * runs nobody holds, and the leases that ran out first. The oldest of them are taken, their leases in
   * the same statement.
   */
  async #claimBatch(asks: readonly BatchedWrite<ClaimAsk>[]): Promise<Map<string, ClaimedRun>> {
    const claimed = new Map<string, ClaimedRun>();
    const alike = new Map<string, BatchedWrite<ClaimAsk>[]>();
    for (const ask of asks) {
      const kind = JSON.stringify([ask.input.holder, ask.input.ttlMs, ask.input.passOver]);
      let group = alike.get(kind);
      if (!group) alike.set(kind, (group = []));
      group.push(ask);
    }
    for (const group of alike.values()) {
      const { holder, ttlMs, passOver } = group[0]!.input;
      const { rows } = await this.#query<RunRow & { lease_token: string; settings: unknown; checkpoint: unknown; last_seq: string }>(
        `WITH unleased AS (
           SELECT id, resume_after, created_at FROM stepwise_runs
           WHERE lease_holder IS NULL AND ${NEEDS_DRIVER} AND resume_after <= now() AND NOT (id = ANY($3::text[]))
           ORDER BY resume_after, created_at LIMIT $4 FOR UPDATE SKIP LOCKED),
         expired AS (
           SELECT id, resume_after, created_at FROM stepwise_runs
           WHERE lease_holder IS NOT NULL AND ${NEEDS_DRIVER} AND lease_expires <= now() AND resume_after <= now() AND NOT (id = ANY($3::text[]))
           ORDER BY lease_expires LIMIT $4 FOR UPDATE SKIP LOCKED),
         chosen AS (SELECT id FROM (SELECT * FROM unleased UNION ALL SELECT * FROM expired) c ORDER BY resume_after, created_at, id LIMIT $4),
         taken AS (
           UPDATE stepwise_runs r SET lease_holder = $1, lease_token = lease_token + 1, ${LEASE_FOR("$2")}, updated_at = now()
           FROM chosen WHERE r.id = chosen.id
           RETURNING r.*)
         SELECT ${COLUMNS}, lease_token, settings, checkpoint, last_seq FROM taken ORDER BY resume_after, created_at, id`,
        [holder, ttlMs, [...passOver], group.length],
      );
      rows.forEach((row, i) => {
        this.#announce(row.id);
        claimed.set(group[i]!.key, {
          run: toRecord(row),
          lease: { runId: row.id, holder, token: Number(row.lease_token) },
          saved: { settings: row.settings ?? undefined, checkpoint: row.checkpoint ?? undefined, lastSeq: Number(row.last_seq) },
        });
      });
    }
    return claimed;
  }

  async nextClaimInMs(): Promise<number | undefined> {
    const { rows } = await this.#query<{ ms: number | null }>(
      `SELECT (1000 * EXTRACT(EPOCH FROM LEAST(
         (SELECT min(lease_expires) FROM stepwise_runs WHERE lease_holder IS NOT NULL AND ${NEEDS_DRIVER}),
         (SELECT min(resume_after) FROM stepwise_runs WHERE status IN ('running', 'awaiting-user') AND resume_after > now())) - now()))::float8 AS ms`,
      [],
    );
    const ms = rows[0]?.ms;
    return ms === null || ms === undefined ? undefined : Math.max(0, Math.ceil(ms));
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

  subscribe(listener: (runId: string) => void): Promise<() => Promise<void>> {
    // Whatever was announced while the connection was down is lost: "*" tells the listener to re-read.
    return this.#listen(RUNS_CHANNEL, (payload) => announcedRuns(payload).forEach((runId) => listener(runId)), () => listener("*"));
  }

  async subscribeClaimable(listener: () => void): Promise<() => Promise<void>> {
    const { rows } = await this.#query<{ schema: string }>("SELECT current_schema() AS schema", []);
    const schema = rows[0]?.schema;
    return this.#listen(CLAIMABLE_CHANNEL, (payload) => payload === schema && listener(), listener);
  }

  /**
   * LISTENs on `channel` on a connection of its own; if that connection breaks, it listens again on a
   * new one and then calls `missed`.
   */
  async #listen(channel: string, listener: (payload: string) => void, missed: () => void): Promise<() => Promise<void>> {
    await this.#init();
    let stopped = false;
    let client: pg.PoolClient | undefined;
    const onNotification = (message: pg.Notification) => {
      if (message.channel !== channel) return;
      try {
        listener(message.payload ?? "");
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
        if (!stopped) void listen().then(missed, () => undefined);
      });
      await connection.query(`LISTEN ${channel}`);
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
        await connection.query(`UNLISTEN ${channel}`);
        connection.release();
      } catch (error) {
        connection.release(error instanceof Error ? error : new Error(String(error)));
      }
    };
  }

  /** Sends the announcements not yet sent, then ends the store's own pool (a shared pool stays open); a second call is harmless. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.#outbox.flush();
      if (this.#ownsPool) await this.#pool.end();
    })();
    return this.#closing;
  }

  /** Queues the run's change, committed, for the next NOTIFY on RUNS_CHANNEL. */
  #announce(runId: string): void {
    const text = JSON.stringify(runId);
    // An id too long for a notification still tells listeners something changed: "*" has them re-read.
    this.#outbox.queue(Buffer.byteLength(text) + 2 > MAX_NOTIFICATION_PAYLOAD ? '"*"' : text);
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
    throw await this.#leaseLost(lease);
  }

  async #leaseLost(lease: RunLease): Promise<RunLeaseLostError> {
    return new RunLeaseLostError(lease.runId, lease.holder, (await this.#holder(lease.runId)) ?? null);
  }

  async #query<R extends pg.QueryResultRow>(sql: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    await this.#init();
    // Named, so each connection parses and plans a statement once, not on every step of every run.
    return this.#pool.query<R>({ name: statementName(sql), text: sql, values });
  }

  #init(): Promise<void> {
    this.#ready ??= createSchemaIfMissing(this.#pool, { lock: SCHEMA_LOCK, marker: "stepwise_runs_lease_expiry", ddl: SCHEMA }).catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }
}

const statementNames = new Map<string, string>();

/** A prepared statement's name, the same for the same text in every process: a hash of it. */
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) statementNames.set(sql, (name = `stepwise_runs_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}`));
  return name;
}

/**
 * Writes of one kind that share statements: one statement in flight at a time, so that what arrives
 * meanwhile goes together in the next (a store's writes wait on the database, not on each other's slots).
 */
function batcher<I, O>(send: (writes: readonly BatchedWrite<I>[]) => Promise<Map<string, O>>, maxBatch: number): WriteBatcher<I, O> {
  return new WriteBatcher({ send, maxInFlight: 1, maxBatch, nothingWritten: refusedStatement });
}

/**
 * Whether the server refused the statement, so that it wrote nothing: bad data (SQLSTATE class 22), a
 * constraint (23), a rolled-back transaction such as a deadlock (40), a bad statement (42) or a limit
 * (54). After a lost connection or a backend shut down (08, 57) it may have committed before the reply.
 */
function refusedStatement(error: unknown): boolean {
  return error instanceof pg.DatabaseError && ["22", "23", "40", "42", "54"].includes(error.code?.slice(0, 2) ?? "");
}

/**
 * A batch's parameters: its writes as one JSON object by run id, and the ids, which the statement finds
 * by the primary key (a join on a set-returning function would be planned as a scan of every run).
 */
function batchParams<I>(writes: readonly BatchedWrite<I>[], toJson: (input: I) => unknown = (input) => input): [string, string[]] {
  // No prototype, so that a run named "__proto__" is a key like any other.
  const byRun = Object.create(null) as Record<string, unknown>;
  for (const { key, input } of writes) byRun[key] = toJson(input);
  return [JSON.stringify(byRun), writes.map(({ key }) => key)];
}

/** The run ids a notification on RUNS_CHANNEL names: a JSON array of them, or one bare id (as earlier versions sent). */
function announcedRuns(payload: string): string[] {
  if (!payload.startsWith("[")) return payload ? [payload] : [];
  try {
    const ids: unknown = JSON.parse(payload);
    return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
  } catch {
    return ["*"];
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
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    lease:
      row.lease_holder !== null && row.lease_expires !== null
        ? { holder: row.lease_holder, expiresAt: row.lease_expires.toISOString(), takenAt: (row.lease_taken ?? row.updated_at).toISOString() }
        : null,
    decided: row.decided,
    ...(row.resume_failures > 0
      ? { resumeFailures: { count: row.resume_failures, lastError: row.resume_error ?? "", retryAt: new Date(row.resume_after).toISOString() } }
      : {}),
  };
}
