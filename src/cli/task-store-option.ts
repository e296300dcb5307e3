import type { TaskStore } from "../planning/tasks/task-store.js";
import { PostgresTaskStore } from "../stores/postgres-task-store.js";
import type { SqliteDatabase } from "../stores/sqlite-database.js";
import { SqliteTaskStore } from "../stores/sqlite-task-store.js";
import { CliError } from "./cli-error.js";
import { exitCodeOf } from "./run-endings.js";

/** `--store`: the embedded SQLite file (default) or a shared PostgreSQL board (`postgres://…`). */
export function taskStoreFor(store: string | undefined, db: SqliteDatabase, boardId: string): TaskStore {
  if (store === undefined || store === "sqlite") return new SqliteTaskStore({ db, boardId });
  if (/^postgres(ql)?:\/\//.test(store)) return new PostgresTaskStore({ connectionString: store, boardId });
  throw new CliError(`unknown store "${store}"; use sqlite (the default) or a postgres://user@host:port/db URL`);
}

/** Fails early, in one line, when the store cannot be reached. */
export async function checkTaskStore(store: TaskStore, description: string | undefined): Promise<void> {
  try {
    await store.list();
  } catch (error) {
    await store.close().catch(() => undefined);
    const reason = error instanceof Error ? error.message || error.name : String(error);
    throw new CliError(`cannot reach the task store ${redactUrl(description ?? "sqlite")}: ${reason.split("\n")[0]}`, exitCodeOf("failed"));
  }
}

/** The `user:password@` part of a URL (group 1 is `//user`), and a `password=` query parameter (pg reads those too). */
const USER_AND_PASSWORD = /(\/\/[^:/@]*):[^@]*@/;
const PASSWORD_PARAMETER = /([?&])password=[^&#]*(&?)/i;

/** A URL's password never reaches the terminal. */
export function redactUrl(url: string): string {
  return url.replace(USER_AND_PASSWORD, "$1:***@").replace(PASSWORD_PARAMETER, "$1password=***$2");
}

/** The URL without its password, to keep on disk; pg then takes the password from PGPASSWORD. */
export function urlWithoutPassword(url: string): string {
  return url.replace(USER_AND_PASSWORD, "$1@").replace(PASSWORD_PARAMETER, (_all, before: string, after: string) => (after ? before : ""));
}
