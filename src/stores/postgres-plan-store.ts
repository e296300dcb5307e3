import pg from "pg";
import type { PostgresPool } from "./postgres-pool.js";
import type { PlanData } from "../planning/notebook/plan.js";
import { refuseForeignState, type PlanStore, type PlanStoreState } from "../planning/notebook/plan-store.js";
import { createSchemaIfMissing, inTransaction, pgPool } from "./postgres-transaction.js";
import type { ScopedPlanPage, ScopedPlanQuery } from "./scoped-plan-page.js";

export type PostgresPlanStoreOptions = {
  /** Keeps several notebooks' plans apart in one database (one scope per run, say). */
  scope?: string;
  /** A pool to share with the rest of the application; otherwise one is made from `connectionString` (or the PG* variables). */
  pool?: PostgresPool;
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
export async function postgresPlanPage(given: PostgresPool, query: ScopedPlanQuery): Promise<ScopedPlanPage> {
  const pool = pgPool(given);
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
 * A notebook's plans in PostgreSQL, shared by every process that opens the same scope. Every read
 * asks the database and every write is a statement (a `commit` one transaction), done once its
 * promise resolves: no copy is kept, so two processes on one scope each see the other's changes.
 */
export class PostgresPlanStore implements PlanStore {
  readonly scope: string;
  readonly #pool: pg.Pool;
  readonly #ownsPool: boolean;
  #closed = false;

  private constructor(pool: pg.Pool, ownsPool: boolean, scope: string) {
    this.#pool = pool;
    this.#ownsPool = ownsPool;
    this.scope = scope;
  }

  /** Opens the scope, creating the tables if missing. */
  static async open(opts: PostgresPlanStoreOptions = {}): Promise<PostgresPlanStore> {
    const ownsPool = !opts.pool;
    const pool = (opts.pool ? pgPool(opts.pool) : undefined) ?? new pg.Pool(opts.connectionString ? { connectionString: opts.connectionString } : {});
    // An idle connection that drops emits 'error', which would end the process unheard; the pool has discarded it already.
    if (ownsPool) pool.on("error", () => undefined);
    try {
      await createSchemaIfMissing(pool, { lock: SCHEMA_LOCK, marker: "stepwise_current_plans", ddl: SCHEMA });
      return new PostgresPlanStore(pool, ownsPool, opts.scope ?? "default");
    } catch (error) {
      if (ownsPool) await pool.end().catch(() => undefined);
      throw error;
    }
  }

  async add(plan: PlanData): Promise<void> {
    await this.#pool.query(UPSERT, [this.scope, plan.id, JSON.stringify(plan)]);
  }

  async get(id: string): Promise<PlanData | null> {
    const rows = await this.#pool.query<{ data: PlanData }>("SELECT data FROM stepwise_plans WHERE scope = $1 AND id = $2", [this.scope, id]);
    return rows.rows[0]?.data ?? null;
  }

  async list(): Promise<PlanData[]> {
    const rows = await this.#pool.query<{ data: PlanData }>("SELECT data FROM stepwise_plans WHERE scope = $1 ORDER BY position", [this.scope]);
    return rows.rows.map((row) => row.data);
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.#pool.query("DELETE FROM stepwise_plans WHERE scope = $1 AND id = $2", [this.scope, id]);
    return (result.rowCount ?? 0) > 0;
  }

  /** One transaction: a kill or a failed statement leaves either all of it or none of it. */
  async commit(plans: PlanData[], currentId: string | null): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      for (const plan of plans) await client.query(UPSERT, [this.scope, plan.id, JSON.stringify(plan)]);
      await client.query(
        `INSERT INTO stepwise_current_plans (scope, plan_id) VALUES ($1, $2) ON CONFLICT (scope) DO UPDATE SET plan_id = excluded.plan_id`,
        [this.scope, currentId],
      );
    });
  }

  async currentPlanId(): Promise<string | null | undefined> {
    const rows = await this.#pool.query<{ plan_id: string | null }>("SELECT plan_id FROM stepwise_current_plans WHERE scope = $1", [this.scope]);
    return rows.rows[0] ? rows.rows[0].plan_id : undefined;
  }

  saveState(): PlanStoreState {
    return { kind: "reference", store: "postgres", scope: this.scope };
  }

  loadState(state: PlanStoreState): void {
    refuseForeignState(state, "postgres", this.scope);
  }

  /** Ends the store's own pool (a shared pool is its owner's to end); a second call is harmless. */
  async close(): Promise<void> {
    if (!this.#ownsPool || this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
