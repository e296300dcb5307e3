import { CliError } from "./cli-error.js";
import { exitCodeOf } from "./run-endings.js";

/** What SQLite says when the store file is unusable, and what the user can do about it. */
const FIXES: Record<string, string> = {
  SQLITE_NOTADB: "is not a SQLite database (corrupt, or another file). Move it away to start a fresh store, or point STEPWISE_HOME at another folder",
  SQLITE_CORRUPT: "is damaged. Move it away to start a fresh store (keep a copy if its runs matter), or point STEPWISE_HOME at another folder",
  SQLITE_READONLY: "is read-only. Make it and its folder writable (chmod u+w), or point STEPWISE_HOME at a folder you can write",
  SQLITE_CANTOPEN: "cannot be opened. Check that its folder exists and is writable, or point STEPWISE_HOME at another folder",
  SQLITE_PERM: "may not be written. Make it and its folder writable, or point STEPWISE_HOME at a folder you can write",
};

/**
 * A SQLite error about the store file itself, as one line naming the file and the fix; undefined for
 * any other error. (SQLite's own words, "file is not a database", name neither.)
 */
export function storeProblem(error: unknown, database: string): CliError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return undefined;
  // Extended codes (SQLITE_READONLY_DBMOVED, SQLITE_CANTOPEN_ISDIR, …) share their primary code's fix.
  const fix = FIXES[code.split("_").slice(0, 2).join("_")];
  return fix ? new CliError(`the store ${database} ${fix}`, exitCodeOf("failed")) : undefined;
}
