import Database from "better-sqlite3";
import type { SqliteConnection } from "./sqlite-connection.js";

export type SqliteDatabase = Database.Database;

/** The database a store was given, as better-sqlite3 types it, for the store's own use. */
export function sqliteDatabase(connection: SqliteConnection): SqliteDatabase {
  return connection as unknown as SqliteDatabase;
}

/**
 * Opens (creating if needed, unless it `mustExist`) a SQLite file the way every Stepwise store wants it: WAL, so readers
 * never block the writer and a killed process leaves the last committed state; a busy timeout, so
 * several processes on one file wait for each other instead of failing.
 */
export function openSqliteDatabase(path: string, opts: { mustExist?: boolean } = {}): SqliteDatabase {
  const db = new Database(path, { fileMustExist: opts.mustExist === true });
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  return db;
}
