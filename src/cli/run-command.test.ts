import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCommand } from "./run-command.js";
import { openHandles } from "./test-support/open-handles.js";

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

describe("runCommand", () => {
  it("closes the SQLite file when the session cannot be opened (an unreachable board), so a long-lived viewer leaks nothing", async () => {
    const home = mkdtempSync(join(tmpdir(), "stepwise-run-"));
    const workspace = join(home, "ws");
    mkdirSync(workspace);
    const database = join(home, "stepwise.db");
    const opts = { strategy: "tasks", model: "scripted:demo", workspace, database, store: "postgres://someone@127.0.0.1:1/none" };
    for (let attempt = 0; attempt < 3; attempt++) {
      await expect(runCommand("Report", opts, { stdout: quiet(), stderr: quiet() })).rejects.toThrow(/cannot reach the task store/);
    }
    expect(openHandles(database)).toBe(0);
  });
});
