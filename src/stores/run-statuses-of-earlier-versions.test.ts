import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteRunStore } from "./sqlite-run-store.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a run store written by an earlier version", () => {
  it("reads its statuses finished and awaiting-approval as final and awaiting-user, and a paused run still takes decisions and is found by workers", async () => {
    dir = mkdtempSync(join(tmpdir(), "stepwise-statuses-"));
    const file = join(dir, "stepwise.db");
    const first = new SqliteRunStore(file);
    const done = await first.createRun({ id: "done-run", task: "t", strategy: "todos", model: "m" }, {}, "old-driver", 1);
    const paused = await first.createRun({ id: "paused-run", task: "t", strategy: "todos", model: "m" }, {}, "old-driver", 1);
    await first.releaseLease(done);
    await first.releaseLease(paused);
    await first.close();
    // As an earlier version left the file: its status names, and its index on them.
    const raw = new Database(file);
    raw.exec(`UPDATE runs SET status = 'finished', answer = 'done' WHERE id = 'done-run';
      UPDATE runs SET status = 'awaiting-approval' WHERE id = 'paused-run';
      DROP INDEX IF EXISTS runs_waiting;
      CREATE INDEX runs_resumable ON runs (resume_after, created_at) WHERE status IN ('running', 'awaiting-approval');`);
    raw.close();

    const store = new SqliteRunStore(file);
    try {
      expect((await store.getRun("done-run"))?.status).toBe("final");
      expect((await store.getRun("paused-run"))?.status).toBe("awaiting-user");
      expect((await store.findRuns({ status: ["awaiting-user"], limit: 10 })).runs.map((run) => run.id)).toEqual(["paused-run"]);
      expect(await store.submitDecisions("paused-run", { c1: { action: "approve" } })).toBe(true);
      expect((await store.resumableRuns()).map((run) => run.id)).toEqual(["paused-run"]);
    } finally {
      await store.close();
    }
  });
});
