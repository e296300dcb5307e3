import { mkdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DEFAULT_PROTECTED_PATHS, type ProtectedPaths } from "../tools/protected-paths.js";
import { CliError } from "./cli-error.js";

/**
 * Where the CLI keeps its embedded store: `$STEPWISE_HOME`, else `.stepwise/` in the current folder.
 * One SQLite file holds runs, checkpoints, plans and the task board. Its folder is made unless
 * `create` is false (a command that only reads never leaves a store behind).
 */
export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env, opts: { create?: boolean } = {}): string {
  const fromEnv = env["STEPWISE_HOME"];
  const home = resolve(fromEnv ?? join(process.cwd(), ".stepwise"));
  if (opts.create !== false) makeFolder(home, fromEnv !== undefined ? "STEPWISE_HOME" : "the store folder");
  return join(home, "stepwise.db");
}

/**
 * Creates a folder and its missing parents one level at a time. Node's own recursive mkdir spins
 * forever where creating a folder fails with ENOENT (under /proc, say), so each step's error is
 * reported instead, naming the folder.
 */
function makeFolder(path: string, name: string): void {
  const missing: string[] = [];
  let at = path;
  for (;;) {
    let isDir: boolean | undefined;
    try {
      isDir = statSync(at).isDirectory();
    } catch {
      // Not there (or not reachable): create it after its parent.
    }
    if (isDir === false) throw new CliError(`${name} ${path} cannot be used: ${at} is a file, not a folder`);
    if (isDir) break;
    missing.unshift(at);
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") continue;
      throw new CliError(`${name} ${path} cannot be created (${code ?? "error"} at ${folder}); point STEPWISE_HOME at a folder you can write`);
    }
  }
}

/**
 * What the workspace tools must never open when the store is `database`: the default hidden places,
 * the store's folder and the SQLite file with its journal files (named too, in case the folder is
 * the workspace root itself).
 */
export function storePaths(database: string): ProtectedPaths["hidden"] {
  return [...DEFAULT_PROTECTED_PATHS.hidden, dirname(database), database, `${database}-wal`, `${database}-shm`, `${database}-journal`];
}
