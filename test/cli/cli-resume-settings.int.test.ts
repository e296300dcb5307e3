import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/run-endings.js";
import { freshSchema } from "../../src/stores/test-support/fresh-schema.js";
import { cliTestTimeout, freshHome, runCli } from "./cli-harness.js";

/** `url` with its password set to `password` ("" removes it). */
function withPassword(url: string, password: string): string {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.href;
}

describe("a resumed run in PostgreSQL (needs PostgreSQL on 127.0.0.1:5432)", () => {
  it("keeps the run, its settings and its board in PostgreSQL, none on disk, and resumes it by id with the password from PGPASSWORD", async () => {
    const home = freshHome();
    const ws = join(home, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "b.txt"), "bravo\n");
    // A schema of its own, so that the run and its board are not left in the test database's public schema.
    const schema = await freshSchema();
    try {
      const store = withPassword(schema.url, "hunter2");
      const first = await runCli(["run", "Report", "-s", "tasks", "-m", "scripted:demo", "-w", ws, "--store", store, "--max-steps", "4"], { home });
      expect(first.code, first.stderr).toBe(exitCodeOf("max-steps"));
      for (const file of readdirSync(home).filter((name) => name.startsWith("stepwise.db"))) {
        expect(readFileSync(join(home, file)).includes("hunter2"), file).toBe(false);
      }

      const runId = /^run (\S+) \(tasks\)/m.exec(first.stdout)?.[1] ?? "";
      expect(runId).not.toBe("");
      const withoutPassword = withPassword(schema.url, "");
      const resumed = await runCli(["run", "--resume", runId, "--store", withoutPassword, "--max-steps", "50"], { home, env: { PGPASSWORD: "hunter2" } });
      expect(resumed.code, resumed.stderr).toBe(0);
      // The board made in the first run, continued: its tasks are found and updated, none made again.
      expect(resumed.stdout).not.toMatch(/· TaskCreate/);
      expect(resumed.stdout).toMatch(/TaskUpdate \{"task_id":"2","status":"completed"\} → Updated task #2/);
      expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
    } finally {
      await schema.drop();
    }
  }, cliTestTimeout(2));
});
