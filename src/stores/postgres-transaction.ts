import type pg from "pg";
import type { PostgresPool } from "./postgres-pool.js";

/** A pool a store was given, as node-postgres types it, for the store's own use. */
export function pgPool(pool: PostgresPool): pg.Pool {
  return pool as unknown as pg.Pool;
}

/** Runs `fn` in one transaction on a connection of its own: committed when it resolves, rolled back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Creates a store's tables once per database: under an advisory lock, so processes opening at once
 * don't race, and only when `marker` (a table, index or type the DDL creates) is missing, because
 * re-running DDL takes locks that stall live writers.
 */
export function createSchemaIfMissing(pool: pg.Pool, schema: { lock: number; marker: string; ddl: string }): Promise<void> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [schema.lock]);
    const { rows } = await client.query<{ ready: boolean }>("SELECT coalesce(to_regclass($1)::oid, to_regtype($1)::oid) IS NOT NULL AS ready", [schema.marker]);
    if (!rows[0]?.ready) await client.query(schema.ddl);
  });
}
