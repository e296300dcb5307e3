import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "vitest";
import { drainFleet } from "./test-support/fleet-suite.js";

describe("a fleet of workers on one SQLite file", () => {
  it("4 workers, each on its own connection, claim 60 queued runs: each driven by exactly one, each call once; a run queued later is claimed at once", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "stepwise-fleet-db-")), "runs.db");
    await drainFleet(file, { workers: 4, runs: 60, concurrency: 4 });
  }, 120_000);
});
