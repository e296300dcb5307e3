import pg from "pg";
import type { PlanData } from "../planning/notebook/plan.js";
import type { PlanStorage } from "../planning/notebook/plan-storage.js";
import { createSchemaIfMissing, inTransaction } from "./postgres-transaction.js";
import type { ScopedPlanPage, ScopedPlanQuery } from "./scoped-plan-page.js";

export type PostgresPlanStorageOptions = {
  /** Keeps several notebooks' plans apart in one database (one scope per run, say). */
  scope?: string;
  /** A pool to share with the rest of the application; otherwise one is made from `connectionString` (or the PG* variables). */
  pool?: pg.Pool;
  connectionString?: string;
};

// Serializes table creation when many processes start on a fresh database at once.
const SCHEMA_LOCK = 7_311_006;
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS stepwise_plans (
    scope text NOT NULL,
    id text NOT NULL,
    position bigserial,
    data jsonb NOT NULL,
    PRIMARY KEY (scope, id)
  );
  CREATE TABLE IF NOT EXISTS stepwise_current_plans (
    scope text PRIMARY KEY,
    plan_id text
  );
`;
const UPSERT = `INSERT INTO stepwise_plans (scope, id, data) VALUES ($1, $2, $3)
  ON CONFLICT (scope, id) DO UPDATE SET data = excluded.data`;

/**
 * The newest plans of every scope in the database, at most `query.limit`, and how many match in all:
 * the database counts and limits, so the page stays small however many plans it keeps.
 */
export async function postgresPlanPage(pool: pg.Pool, query: ScopedPlanQuery): Promise<ScopedPlanPage> {
  // Reading creates nothing: a database no notebook has written to holds no plans.
  const table = await pool.query<{ present: boolean }>("SELECT to_regclass('stepwise_plans') IS NOT NULL AS present");
  if (!table.rows[0]?.present) return { plans: [], total: 0 };
  const matching = "FROM stepwise_plans WHERE left(id, length($1)) = $1";
  const prefix = query.idPrefix ?? "";
  const count = await pool.query<{ total: number }>(`SELECT count(*)::int AS total ${matching}`, [prefix]);
  const rows = await pool.query<{ scope: string; data: PlanData }>(`SELECT scope, data ${matching} ORDER BY position DESC LIMIT $2`, [prefix, query.limit]);
  return { plans: rows.rows.map((row) => ({ scope: row.scope, plan: row.data })), total: count.rows[0]?.total ?? 0 };
}

/**
 * A notebook's plans in PostgreSQL, shared by every process that opens the same scope. The notebook
 * reads synchronously, so `open` loads the scope once and reads come from that copy; `commit` (every
 * notebook change) writes through in one transaction and updates the copy only once it committed, so
 * a tool call's result is never seen before its plan is stored. `add` and `delete` write in the
 * background, in order; `flush` waits for them.
 */
export class PostgresPlanStorage implements PlanStorage {
  readonly persistent = true;
  readonly scope: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  readonly #plans: Map<string, PlanData>;
  #currentId: string | null | undefined;
  #writes: Promise<void> = Promise.resolve();
  #failure: unknown;
  #closed = false;

  private constructor(pool: pg.Pool, ownsPool: boolean, scope: string, plans: PlanData[], currentId: string | null | undefined) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.scope = scope;
    this.#plans = new Map(plans.map((plan) => [plan.id, plan]));
    this.#currentId = currentId;
  }

  /** Opens the scope (creating the tables if missing) and loads its plans. */
  static async open(opts: PostgresPlanStorageOptions = {}): Promise<PostgresPlanStorage> {
    const ownsPool = !opts.pool;
    const pool = opts.pool ?? new pg.Pool(opts.connectionString ? { connectionString: opts.connectionString } : {});
    // An idle connection that drops emits 'error', which would end the process unheard; the pool has discarded it already.
    if (ownsPool) pool.on("error", () => undefined);
    const scope = opts.scope ?? "default";
    try {
      await createSchemaIfMissing(pool, { lock: SCHEMA_LOCK, marker: "stepwise_current_plans", ddl: SCHEMA });
      const plans = await pool.query<{ data: PlanData }>("SELECT data FROM stepwise_plans WHERE scope = $1 ORDER BY position", [scope]);
      const current = await pool.query<{ plan_id: string | null }>("SELECT plan_id FROM stepwise_current_plans WHERE scope = $1", [scope]);
      return new PostgresPlanStorage(pool, ownsPool, scope, plans.rows.map((row) => row.data), current.rows[0] ? current.rows[0].plan_id : undefined);
    } catch (error) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw error;
    }
  }

  add(plan: PlanData): void {
    this.#plans.set(plan.id, structuredClone(plan));
    this.#write((client) => client.query(UPSERT, [this.scope, plan.id, JSON.stringify(plan)]));
  }

  get(id: string): PlanData | null {
    const plan = this.#plans.get(id);
    return plan ? structuredClone(plan) : null;
  }

  list(): PlanData[] {
    return [...this.#plans.values()].map((plan) => structuredClone(plan));
  }

  delete(id: string): boolean {
    if (!this.#plans.delete(id)) return false;
    this.#write((client) => client.query("DELETE FROM stepwise_plans WHERE scope = $1 AND id = $2", [this.scope, id]));
    return true;
  }

  /** One transaction; the copy changes only once it committed, so a failed write leaves both as they were. */
  async commit(plans: PlanData[], currentId: string | null): Promise<void> {
    await this.flush();
    await inTransaction(this.#pool, async (client) => {
      for (const plan of plans) await client.query(UPSERT, [this.scope, plan.id, JSON.stringify(plan)]);
      await client.query(
        `INSERT INTO stepwise_current_plans (scope, plan_id) VALUES ($1, $2) ON CONFLICT (scope) DO UPDATE SET plan_id = excluded.plan_id`,
        [this.scope, currentId],
      );
    });
    for (const plan of plans) this.#plans.set(plan.id, structuredClone(plan));
    this.#currentId = currentId;
  }

  currentPlanId(): string | null | undefined {
    return this.#currentId;
  }

  /** Waits for the background writes of `add` and `delete`; rejects with the first that failed. */
  async flush(): Promise<void> {
    await this.#writes;
    if (this.#failure === undefined) return;
    const failure = this.#failure;
    this.#failure = undefined;
    throw failure;
  }

  /** Ends the storage's own pool once its writes are done; a second call is harmless. */
  close(): void {
    if (!this.#ownsPool || this.#closed) return;
    this.#closed = true;
    const pool = this.#pool;
    void this.#writes.then(() => pool.end()).catch(() => undefined);
  }

  #write(step: (client: pg.Pool) => Promise<unknown>): void {
    this.#writes = this.#writes.then(async () => {
      try {
        await step(this.#pool);
      } catch (error) {
        this.#failure ??= error;
      }
    });
  }
}

