import Database from "better-sqlite3";

export type SqliteDatabase = Database.Database;

/**
 * Opens (creating if needed) a SQLite file the way every Stepwise store wants it: WAL, so readers
 * never block the writer and a killed process leaves the last committed state; a busy timeout, so
 * several processes on one file wait for each other instead of failing.
 */
export function openSqliteDatabase(path: string): SqliteDatabase {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("foreign_keys = ON");
  return db;
}
