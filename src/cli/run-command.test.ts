import { mkdirSync, mkdtempSync } from "node:fs";
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
});
