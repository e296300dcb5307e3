/**
 * An open better-sqlite3 database (`new Database(file)`) given to a store, described by the members
 * the stores use, so that Stepwise's published types do not need `@types/better-sqlite3`; any
 * better-sqlite3 `Database` fits.
 */
export interface SqliteConnection {
  readonly open: boolean;
  prepare(source: string): unknown;
  exec(source: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): unknown;
}
