import pg from "pg";
import { afterAll } from "vitest";
import { PostgresRunStore } from "./postgres-run-store.js";
import { describeRunStore } from "./test-support/run-store-suite.js";
import { TEST_DATABASE_URL } from "./test-support/shared-board-workload.js";

const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL });
afterAll(() => pool.end());

// Run ids are fresh UUIDs, so suites running at once on the shared tables never meet.
describeRunStore("postgres", async () => {
  const store = new PostgresRunStore({ pool });
  return {
    store,
    reopen: async () => new PostgresRunStore({ connectionString: TEST_DATABASE_URL }),
    cleanup: () => store.close(),
  };
});
