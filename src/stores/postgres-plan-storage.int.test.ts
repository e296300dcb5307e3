import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";
import { PostgresPlanStorage } from "./postgres-plan-storage.js";
import { TEST_DATABASE_URL } from "./test-support/shared-board-workload.js";
import { describePlanStorage } from "./test-support/plan-storage-suite.js";

const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL });
afterAll(() => pool.end());

// A fresh prefix per test keeps its scopes apart from every other test's on the shared tables.
describePlanStorage("postgres", async () => {
  const prefix = randomUUID();
  const opened: PostgresPlanStorage[] = [];
  return {
    open: async (scope) => {
      const storage = await PostgresPlanStorage.open({ pool, scope: `${prefix}:${scope ?? "default"}` });
      opened.push(storage);
      return storage;
    },
    cleanup: async () => {
      await Promise.all(opened.map((storage) => storage.flush()));
      await pool.query("DELETE FROM stepwise_plans WHERE scope LIKE $1", [`${prefix}:%`]);
      await pool.query("DELETE FROM stepwise_current_plans WHERE scope LIKE $1", [`${prefix}:%`]);
    },
  };
});
