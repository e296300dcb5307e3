import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../src/stores/sqlite-database.js";
import { SqliteRunStore } from "../../src/stores/sqlite-run-store.js";
import { exitCodeOf } from "../../src/cli/run-endings.js";
import { cliTestTimeout, freshHome, runCli, workspace } from "./cli-harness.js";

async function savedSettings(home: string): Promise<unknown> {
  const store = new SqliteRunStore(join(home, "stepwise.db"));
  try {
    return await store.loadSettings((await store.listRuns(1))[0]!.id);
  } finally {
    await store.close();
  }
}

describe("stepwise run --resume keeps the run's settings", () => {
  it("resumed from another folder with plain --resume, the write still asks and lands in the run's workspace", async () => {
    const home = freshHome();
    const ws = workspace(home);
    // Stops at the step limit before the write.
    const first = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--approval", "writes", "--max-steps", "5"], { home });
    expect(first.code, first.stderr).toBe(exitCodeOf("max-steps"));
    expect(existsSync(join(ws, "report.md"))).toBe(false);

    const elsewhere = join(home, "elsewhere");
    mkdirSync(elsewhere);
    const resumed = await runCli(["run", "--resume"], { home, cwd: elsewhere, input: "approve\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("The agent wants to call write_file with:");
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
    expect(readdirSync(elsewhere)).toEqual([]);
  }, cliTestTimeout(2));

  it("lets options typed on the resuming command line override the saved ones", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const first = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--approval", "writes", "--max-steps", "5"], { home });
    expect(first.code, first.stderr).toBe(exitCodeOf("max-steps"));
    const resumed = await runCli(["run", "--resume", "--approval", "none"], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toContain("The agent wants to call");
    expect(existsSync(join(ws, "report.md"))).toBe(true);
    // Kept for a later resume: the override, and the rest as saved.
    expect(await savedSettings(home)).toEqual({ workspace: ws, approval: "none", maxSteps: 5 });
  }, cliTestTimeout(2));

  it("resumes a run saved before settings were kept with the command line's options", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const first = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--max-steps", "5"], { home });
    expect(first.code, first.stderr).toBe(exitCodeOf("max-steps"));
    const db = openSqliteDatabase(join(home, "stepwise.db"));
    db.prepare("DELETE FROM run_settings").run();
    db.close();
    const resumed = await runCli(["run", "--resume", "--workspace", ws, "--approval", "writes"], { home, input: "approve\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("The agent wants to call write_file with:");
    expect(existsSync(join(ws, "report.md"))).toBe(true);
  }, cliTestTimeout(2));
});

describe("a PostgreSQL password in --store", () => {
  it("never reaches the terminal or the SQLite file when the server cannot be reached: one line, exit 1", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws, "--store", "postgres://someone:hunter2@127.0.0.1:1/none"], { home });
    expect(result.code, result.stderr).toBe(exitCodeOf("failed"));
    expect(result.stderr).toMatch(/^stepwise: cannot reach the store postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none: .+\n$/);
    expect(`${result.stdout}${result.stderr}`).not.toContain("hunter2");
    for (const file of readdirSync(home).filter((name) => name.startsWith("stepwise.db"))) {
      expect(readFileSync(join(home, file)).includes("hunter2"), file).toBe(false);
    }
  });
});
