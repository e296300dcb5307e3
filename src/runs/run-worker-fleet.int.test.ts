import { afterEach, describe, it } from "vitest";
import { freshSchema } from "../stores/test-support/fresh-schema.js";
import { drainFleet } from "./test-support/fleet-suite.js";

// Needs PostgreSQL (a schema of its own).
const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

describe("a fleet of workers on PostgreSQL", () => {
  it("8 workers claim 200 queued runs: each driven by exactly one, each call once, nobody spinning; a run queued later is claimed at once", async () => {
    const schema = await freshSchema();
    drops.push(schema.drop);
    await drainFleet(schema.url, { workers: 8, runs: 200, concurrency: 8 });
  }, 120_000);
});
