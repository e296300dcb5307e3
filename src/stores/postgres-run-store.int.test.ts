import pg from "pg";
import { PostgresRunStore } from "./postgres-run-store.js";
import { describeRunStore } from "./test-support/run-store-suite.js";
import { freshSchema } from "./test-support/fresh-schema.js";

// A schema per test: runs left running (the suite's dead drivers) never reach a worker elsewhere.
describeRunStore("postgres", async () => {
  const schema = await freshSchema();
  const pool = new pg.Pool({ connectionString: schema.url });
  const store = new PostgresRunStore({ pool });
  return {
    store,
    reopen: async () => new PostgresRunStore({ connectionString: schema.url }),
    cleanup: async () => {
      await store.close();
      await pool.end();
      await schema.drop();
    },
  };
});
