/**
 * A node-postgres pool (`new pg.Pool(…)`) given to a store, described by the members the stores
 * use, so that Stepwise's published types do not need `@types/pg`; any `pg.Pool` fits.
 */
export interface PostgresPool {
  query(text: string, values?: unknown[]): Promise<unknown>;
  connect(): Promise<unknown>;
  on(event: "error", listener: (error: Error) => void): unknown;
  end(): Promise<void>;
}
