import { randomUUID } from "node:crypto";
import pg from "pg";
import * as vitest from "vitest";
import { describePlanStore } from "../testing.js";
import { PostgresPlanStore } from "./postgres-plan-store.js";
import { TEST_DATABASE_URL } from "./test-support/shared-board-workload.js";

const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL });
vitest.afterAll(() => pool.end());

// A fresh prefix per test keeps its scopes apart from every other test's on the shared tables.
describePlanStore("postgres", async () => {
  const prefix = randomUUID();
  return {
    open: (scope) => PostgresPlanStore.open({ pool, scope: `${prefix}:${scope ?? "default"}` }),
    cleanup: async () => {
      await pool.query("DELETE FROM stepwise_plans WHERE scope LIKE $1", [`${prefix}:%`]);
      await pool.query("DELETE FROM stepwise_current_plans WHERE scope LIKE $1", [`${prefix}:%`]);
    },
  };
}, vitest);
