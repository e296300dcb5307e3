import type { PlanData } from "../planning/notebook/plan.js";
import { refuseForeignState, type PlanStore, type PlanStoreState } from "../planning/notebook/plan-store.js";
import type { ScopedPlanPage, ScopedPlanQuery } from "./scoped-plan-page.js";
import type { SqliteConnection } from "./sqlite-connection.js";
import { openSqliteDatabase, sqliteDatabase, type SqliteDatabase } from "./sqlite-database.js";

export interface SqlitePlanStoreOptions {
  /**
   * Keeps several notebooks' plans apart in one file (for example one scope per agent or project).
   * Notebooks with the same scope share their history.
   */
  scope?: string;
}

/**
 * The newest plans of every scope in the file, at most `query.limit`, and how many match in all: the
 * database counts and limits, so the page stays small however many plans the file keeps.
 */
export function sqlitePlanPage(connection: SqliteConnection, query: ScopedPlanQuery): ScopedPlanPage {
  const db = sqliteDatabase(connection);
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'stepwise_plans'").get();
  if (!table) return { plans: [], total: 0 };
  const matching = "FROM stepwise_plans WHERE substr(id, 1, length(@prefix)) = @prefix";
  const params = { prefix: query.idPrefix ?? "", limit: query.limit };
  const { total } = db.prepare<[typeof params], { total: number }>(`SELECT count(*) AS total ${matching}`).get(params) ?? { total: 0 };
  // An upsert keeps the row's rowid, so the highest rowid is the plan added last.
  const rows = db.prepare<[typeof params], { scope: string; data: string }>(`SELECT scope, data ${matching} ORDER BY rowid DESC LIMIT @limit`).all(params);
  return { plans: rows.map((row) => ({ scope: row.scope, plan: JSON.parse(row.data) as PlanData })), total };
}

/**
 * Plans in one SQLite file, each committed as it changes: a notebook backed by it survives a
 * process restart. Give it a file path (it owns the connection) or an open database.
 */
export class SqlitePlanStore implements PlanStore {
  readonly scope: string;
  readonly #db: SqliteDatabase;
  readonly #ownsDb: boolean;
  readonly #upsert;
  readonly #get;
  readonly #list;
  readonly #delete;
  readonly #setCurrent;
  readonly #getCurrent;

  constructor(database: string | SqliteConnection, opts: SqlitePlanStoreOptions = {}) {
    this.#ownsDb = typeof database === "string";
    this.#db = typeof database === "string" ? openSqliteDatabase(database) : sqliteDatabase(database);
    this.scope = opts.scope ?? "default";
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS stepwise_plans (
        scope      TEXT NOT NULL,
        id         TEXT NOT NULL,
        data       TEXT NOT NULL,
        PRIMARY KEY (scope, id)
      );
      CREATE TABLE IF NOT EXISTS stepwise_current_plans (
        scope      TEXT PRIMARY KEY,
        plan_id    TEXT
      )`);
    this.#upsert = this.#db.prepare<[string, string, string]>(
      `INSERT INTO stepwise_plans (scope, id, data) VALUES (?, ?, ?)
       ON CONFLICT (scope, id) DO UPDATE SET data = excluded.data`,
    );
    this.#get = this.#db.prepare<[string, string], { data: string }>("SELECT data FROM stepwise_plans WHERE scope = ? AND id = ?");
    // An upsert keeps the row's rowid, so rowid order is the order plans were first added.
    this.#list = this.#db.prepare<[string], { data: string }>("SELECT data FROM stepwise_plans WHERE scope = ? ORDER BY rowid");
    this.#delete = this.#db.prepare<[string, string]>("DELETE FROM stepwise_plans WHERE scope = ? AND id = ?");
    this.#setCurrent = this.#db.prepare<[string, string | null]>(
      `INSERT INTO stepwise_current_plans (scope, plan_id) VALUES (?, ?)
       ON CONFLICT (scope) DO UPDATE SET plan_id = excluded.plan_id`,
    );
    this.#getCurrent = this.#db.prepare<[string], { plan_id: string | null }>("SELECT plan_id FROM stepwise_current_plans WHERE scope = ?");
  }

  async add(plan: PlanData): Promise<void> {
    this.#upsert.run(this.scope, plan.id, JSON.stringify(plan));
  }

  /** One transaction: a kill leaves either all of it or none of it. */
  async commit(plans: PlanData[], currentId: string | null): Promise<void> {
    this.#db.transaction(() => {
      for (const plan of plans) this.#upsert.run(this.scope, plan.id, JSON.stringify(plan));
      this.#setCurrent.run(this.scope, currentId);
    })();
  }

  async currentPlanId(): Promise<string | null | undefined> {
    const row = this.#getCurrent.get(this.scope);
    return row ? row.plan_id : undefined;
  }

  async get(id: string): Promise<PlanData | null> {
    const row = this.#get.get(this.scope, id);
    return row ? (JSON.parse(row.data) as PlanData) : null;
  }

  async list(): Promise<PlanData[]> {
    return this.#list.all(this.scope).map((row) => JSON.parse(row.data) as PlanData);
  }

  async delete(id: string): Promise<boolean> {
    return this.#delete.run(this.scope, id).changes > 0;
  }

  saveState(): PlanStoreState {
    return { kind: "reference", store: "sqlite", scope: this.scope };
  }

  loadState(state: PlanStoreState): void {
    refuseForeignState(state, "sqlite", this.scope);
  }

  /** Closes the file if this storage opened it; a second call is harmless. */
  async close(): Promise<void> {
    if (this.#ownsDb && this.#db.open) this.#db.close();
  }
}
