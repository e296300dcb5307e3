import pg from "pg";
import { PostgresRunStore, RUNS_CHANNEL } from "./postgres-run-store.js";
import { freshSchema } from "./test-support/fresh-schema.js";
import * as vitest from "vitest";
import { describeRunStore } from "../testing.js";

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
}, vitest);

vitest.describe("PostgresRunStore announcements", () => {
  vitest.it("tell a listener of every run in a burst of 400 changes, in NOTIFYs of their own that fit the payload limit, sent before close resolves", async () => {
    const schema = await freshSchema();
    const writer = new PostgresRunStore({ connectionString: schema.url });
    const listener = new PostgresRunStore({ connectionString: schema.url });
    const heard = new Set<string>();
    let allHeard!: () => void;
    const everyRunHeard = new Promise<void>((resolve) => (allHeard = resolve));
    const notifications: string[] = [];
    const admin = new pg.Client({ connectionString: schema.url });
    await admin.connect();
    admin.on("notification", (message) => notifications.push(message.payload ?? ""));
    await admin.query(`LISTEN ${RUNS_CHANNEL}`);
    const stop = await listener.subscribe((runId) => heard.add(runId).size === 400 && allHeard());
    try {
      // Long ids, so the burst needs more than one payload.
      const ids = Array.from({ length: 400 }, (_, i) => `run-${String(i).padStart(3, "0")}-${"x".repeat(60)}`);
      await Promise.all(ids.map((id) => writer.createRun({ id, task: "t", strategy: "react", model: "m" }, {}, "d", 60_000)));
      await writer.close();
      await everyRunHeard;
      vitest.expect([...heard].sort()).toEqual(ids);
      vitest.expect(notifications.length).toBeGreaterThan(1);
      vitest.expect(notifications.length).toBeLessThan(400);
      for (const payload of notifications) vitest.expect(Buffer.byteLength(payload)).toBeLessThan(8000);
    } finally {
      await stop();
      await listener.close();
      await admin.end();
      await schema.drop();
    }
  });
});
