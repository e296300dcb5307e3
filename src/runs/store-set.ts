import { existsSync } from "node:fs";
import pg from "pg";
import type { PlanStore } from "../planning/notebook/plan-store.js";
import type { TaskBoardSummary, TaskStore } from "../planning/tasks/task-store.js";
import type { PlanData } from "../planning/notebook/plan.js";
import { PostgresPlanStore, postgresPlanPage } from "../stores/postgres-plan-store.js";
import { PostgresRunStore } from "../stores/postgres-run-store.js";
import { PostgresTaskStore, postgresTaskBoards } from "../stores/postgres-task-store.js";
import type { RunStore } from "../stores/run-store.js";
import { openSqliteDatabase } from "../stores/sqlite-database.js";
import type { ScopedPlanPage, ScopedPlanQuery } from "../stores/scoped-plan-page.js";
import { SqlitePlanStore, sqlitePlanPage } from "../stores/sqlite-plan-store.js";
import { SqliteRunStore } from "../stores/sqlite-run-store.js";
import { SqliteTaskStore, sqliteTaskBoards } from "../stores/sqlite-task-store.js";
import { RunInputError } from "./run-input-error.js";

/**
 * Everything a run keeps, in one place: the runs themselves, the notebook's plans and the task
 * boards. One connection (a SQLite file, a PostgreSQL pool) serves all of them.
 */
export interface StoreSet {
  /** Where they are, fit to print: a file path, or a URL without its password. */
  readonly location: string;
  readonly runs: RunStore;
  /** The notebook's plans of one scope (a run's id), loaded and ready. */
  plans(scope: string): Promise<PlanStore>;
  /**
   * The plans of every scope (every run's notebook, `stepwise mcp`'s, …), the newest first, at most
   * `query.limit`, each with where it was made, and how many match in all.
   */
  listPlans(query: ScopedPlanQuery): Promise<StoredPlans>;
  board(boardId: string): TaskStore;
  /** Every task board kept here, by id, with its task counts; reading makes none. */
  boards(): Promise<TaskBoardSummary[]>;
  close(): Promise<void>;
}

export type { ScopedPlanQuery };

/** A plan and where it was made: a run (`run 1a2b3c4d`) or another notebook's scope, such as `mcp:<board>`. */
export type StoredPlan = { plan: PlanData; origin: string };
/** A page of stored plans, newest first, and how many matched in all (the page may leave some out). */
export type StoredPlans = { plans: StoredPlan[]; total: number };

const POSTGRES_URL = /^postgres(ql)?:\/\//;

export type OpenStoresOptions = {
  /** Only open a SQLite file that exists (a reader must not leave an empty store behind); else `StoreMissingError`. */
  mustExist?: boolean;
};

/** A SQLite file path, or a `postgres://user@host:port/db` URL (the password may come from PGPASSWORD). */
export function openStores(location: string, opts: OpenStoresOptions = {}): StoreSet {
  if (POSTGRES_URL.test(location)) return postgresStores(location);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(location)) {
    throw new RunInputError(`unknown store "${redactUrl(location)}"; use a SQLite file path or a postgres://user@host:port/db URL`);
  }
  if (opts.mustExist && !existsSync(location)) throw new StoreMissingError(location);
  return sqliteStores(location, opts.mustExist === true);
}

/** The SQLite file a reader was pointed at does not exist. */
export class StoreMissingError extends RunInputError {
  override name = "StoreMissingError";
  constructor(readonly file: string) {
    super(`there is no store at ${file}`);
  }
}

function sqliteStores(file: string, mustExist: boolean): StoreSet {
  const db = openSqliteDatabase(file, { mustExist });
  const runs = new SqliteRunStore(db);
  return {
    location: file,
    runs,
    plans: async (scope) => new SqlitePlanStore(db, { scope }),
    listPlans: async (query) => withOrigins(runs, sqlitePlanPage(db, query)),
    board: (boardId) => new SqliteTaskStore({ db, boardId }),
    boards: async () => sqliteTaskBoards(db),
    async close() {
      await runs.close();
      db.close();
    },
  };
}

function postgresStores(url: string): StoreSet {
  const pool = new pg.Pool({ connectionString: url });
  // An idle connection that drops emits 'error', which would end the process unheard; the pool has discarded it already.
  pool.on("error", () => undefined);
  const runs = new PostgresRunStore({ pool });
  return {
    location: redactUrl(url),
    runs,
    plans: (scope) => PostgresPlanStore.open({ pool, scope }),
    listPlans: async (query) => withOrigins(runs, await postgresPlanPage(pool, query)),
    board: (boardId) => new PostgresTaskStore({ pool, boardId }),
    boards: () => postgresTaskBoards(pool),
    // The run store first: it sends the announcements it still holds on the shared pool.
    async close() {
      await runs.close();
      await pool.end();
    },
  };
}

/** Names each page's scope by its run (`run 1a2b3c4d`) when a run owns it: one look-up per scope on the page. */
async function withOrigins(runs: RunStore, page: ScopedPlanPage): Promise<StoredPlans> {
  const origins = new Map<string, string>();
  for (const scope of new Set(page.plans.map(({ scope }) => scope))) {
    origins.set(scope, (await runs.getRun(scope)) ? `run ${scope.slice(0, 8)}` : scope);
  }
  return { plans: page.plans.map(({ scope, plan }) => ({ plan, origin: origins.get(scope) ?? scope })), total: page.total };
}

/** Fails early, in one line, when the store cannot be reached. */
export async function checkStores(stores: StoreSet): Promise<void> {
  try {
    await stores.runs.listRuns(1);
  } catch (error) {
    const reason = error instanceof Error ? error.message || error.name : String(error);
    throw new StoreUnreachableError(`cannot reach the store ${stores.location}: ${reason.split("\n")[0]}`, { cause: error });
  }
}

/** Fails early, in one line, when a task board cannot be reached. */
export async function checkTaskStore(store: TaskStore, location: string): Promise<void> {
  try {
    await store.list();
  } catch (error) {
    await store.close().catch(() => undefined);
    const reason = error instanceof Error ? error.message || error.name : String(error);
    throw new StoreUnreachableError(`cannot reach the task store ${location}: ${reason.split("\n")[0]}`, { cause: error });
  }
}

/** The store is down or refuses us: not the caller's input, so not a RunInputError. */
export class StoreUnreachableError extends Error {
  override name = "StoreUnreachableError";
}

/** The `user:password@` part of a URL (group 1 is `//user`), and a `password=` query parameter (pg reads those too). */
const USER_AND_PASSWORD = /(\/\/[^:/@]*):[^@]*@/;
const PASSWORD_PARAMETER = /([?&])password=[^&#]*(&?)/i;

/** A URL's password never reaches the terminal. */
function redactUrl(url: string): string {
  return url.replace(USER_AND_PASSWORD, "$1:***@").replace(PASSWORD_PARAMETER, "$1password=***$2");
}
