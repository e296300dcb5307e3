import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * Where the CLI keeps its embedded store: `$STEPWISE_HOME`, else `.stepwise/` in the current folder.
 * One SQLite file holds runs, checkpoints, plans and the task board.
 */
export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  const home = resolve(env["STEPWISE_HOME"] ?? join(process.cwd(), ".stepwise"));
  mkdirSync(home, { recursive: true });
  return join(home, "stepwise.db");
}
