import { randomUUID } from "node:crypto";
import pg from "pg";
import { TEST_DATABASE_URL } from "./shared-board-workload.js";

/**
 * A schema of its own for one test, reached through the URL it returns (its search_path), so a
 * worker or a listing there never meets another test's runs.
 */
export async function freshSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `stepwise_runs_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.href,
    async drop() {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

