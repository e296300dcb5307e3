import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DEFAULT_PROTECTED_PATHS, type ProtectedPaths } from "../tools/protected-paths.js";

/**
 * Where the CLI keeps its embedded store: `$STEPWISE_HOME`, else `.stepwise/` in the current folder.
 * One SQLite file holds runs, checkpoints, plans and the task board.
 */
export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  const home = resolve(env["STEPWISE_HOME"] ?? join(process.cwd(), ".stepwise"));
  mkdirSync(home, { recursive: true });
  return join(home, "stepwise.db");
}

/**
 * What the workspace tools must never open when the store is `database`: the default hidden places,
 * the store's folder and the SQLite file with its journal files (named too, in case the folder is
 * the workspace root itself).
 */
export function storePaths(database: string): ProtectedPaths["hidden"] {
  return [...DEFAULT_PROTECTED_PATHS.hidden, dirname(database), database, `${database}-wal`, `${database}-shm`, `${database}-journal`];
}
