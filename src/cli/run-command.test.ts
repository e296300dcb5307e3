import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../stores/sqlite-run-store.js";
import { runCommand } from "./run-command.js";
import { openHandles } from "./test-support/open-handles.js";

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

describe("runCommand", () => {
  it("closes the SQLite file when the run cannot start (an unknown model), and records no run", async () => {
    const home = mkdtempSync(join(tmpdir(), "stepwise-run-"));
    const workspace = join(home, "ws");
    mkdirSync(workspace);
    const database = join(home, "stepwise.db");
    const opts = { strategy: "tasks", model: "scripted:nonsense", workspace, database };
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(runCommand("Report", opts, { stdout: quiet(), stderr: quiet() })).rejects.toThrow(/unknown scripted model "scripted:nonsense"/);
    }
    expect(openHandles(database)).toBe(0);
    const store = new SqliteRunStore(database);
    expect(await store.listRuns()).toEqual([]);
    await store.close();
  });

  it("opens the SQLite file once for a whole run: runs, events, checkpoints, plans and the board share one connection", async () => {
    const home = mkdtempSync(join(tmpdir(), "stepwise-run-"));
    const workspace = join(home, "ws");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "a.txt"), "alpha\n");
    const database = join(home, "stepwise.db");
    // What one connection holds: the file, its write-ahead log and its shared memory.
    const one = new SqliteRunStore(database);
    await one.listRuns();
    const perConnection = openHandles(database);
    await one.close();
    for (const strategy of ["notebook", "tasks"]) {
      let most = 0;
      // Every line the run prints is a moment to count.
      const counting = new Writable({
        write: (_chunk, _encoding, done) => {
          most = Math.max(most, openHandles(database));
          done();
        },
      });
      expect(await runCommand("Report", { strategy, model: "scripted:demo", workspace, database }, { stdout: counting, stderr: quiet() })).toBe(0);
      expect(most, strategy).toBeGreaterThan(0);
      expect(most, strategy).toBeLessThanOrEqual(perConnection);
    }
    expect(openHandles(database)).toBe(0);
  });
});
