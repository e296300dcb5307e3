import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../src/stores/sqlite-database.js";
import { SqliteRunStore } from "../../src/stores/sqlite-run-store.js";
import { readTrialRecords } from "../../src/eval/trial-record.js";
import { CLI, cliTestTimeout, freshHome, runCli } from "./cli-harness.js";
import { blockingCheck, PLAIN_CHECK, task } from "./eval-tasks.js";

async function runsByTask(store: string): Promise<Map<string, string[]>> {
  const db = openSqliteDatabase(store);
  const runs = new SqliteRunStore(db);
  try {
    const statuses = new Map<string, string[]>();
    for (const run of await runs.listRuns(1000)) statuses.set(run.task, [...(statuses.get(run.task) ?? []), run.status]);
    return statuses;
  } finally {
    await runs.close();
    db.close();
  }
}

describe("stepwise eval (built CLI)", () => {
  it("killed with kill -9 mid-eval, resumes with the same command and reruns nothing that finished", async () => {
    const home = freshHome();
    const suite = join(home, "suite");
    task(suite, "a-first", PLAIN_CHECK);
    const blocking = await blockingCheck();
    task(suite, "b-blocks", blocking.check);
    const out = join(home, "out");
    const args = ["eval", "--model", "scripted:demo", "--suite", suite, "--strategies", "react", "--trials", "1", "--out", out];

    const child = spawn(process.execPath, [CLI, ...args], { cwd: home, env: { PATH: process.env["PATH"] ?? "", TMPDIR: tmpdir(), STEPWISE_HOME: home }, timeout: 60_000 });
    let stdout = "";
    child.stdout.setEncoding("utf8");
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (text: string) => {
        stdout += text;
        if (stdout.includes("trial 1/2 finished: react a-first #1 passed")) resolve();
      });
      child.on("exit", () => reject(new Error(`the eval exited before its first trial finished: ${stdout}`)));
    });
    // Kill it inside b-blocks' check: its run is in the store, "running", and its trial not finished.
    await blocking.entered;
    child.kill("SIGKILL");
    await once(child, "close");
    const before = readTrialRecords(join(out, "results.jsonl"));
    expect(before.map((r) => r.task)).toEqual(["a-first"]);

    blocking.release();
    const resumed = await runCli(args, { home, cwd: home, timeoutMs: 120_000 });
    await blocking.close();
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toContain("a-first #1");
    expect(resumed.stdout).toContain("trial 2/2 finished: react b-blocks #1 passed");
    expect(resumed.stdout).toContain("1 trial(s) were recorded by an earlier run of this eval and not run again.");
    const after = readTrialRecords(join(out, "results.jsonl"));
    expect(after.map((r) => r.task)).toEqual(["a-first", "b-blocks"]);
    expect(after[0]).toEqual(before[0]);
    // a-first ran once. b-blocks' run had finished when the kill came in its check, but its trial had not:
    // the trial ran again, with a run of its own.
    const runs = await runsByTask(join(out, "runs.db"));
    expect(runs.get("Write out.txt for task a-first.")).toEqual(["final"]);
    expect(runs.get("Write out.txt for task b-blocks.")).toEqual(["final", "final"]);
  }, 180_000);

  it("--model scripted:demo --trials 1 runs the built-in suite offline and prints the table, saying it is scripted", async () => {
    const home = freshHome();
    const result = await runCli(["eval", "--model", "scripted:demo", "--trials", "1"], { home, cwd: home, timeoutMs: 300_000 });
    expect(result.code, result.stderr).toBe(0);
    // Said before the first trial and again above the table.
    expect(result.stdout.startsWith("SCRIPTED MODEL: ")).toBe(true);
    expect(result.stdout.match(/SCRIPTED MODEL: /g)).toHaveLength(2);
    expect(result.stdout).toContain("no efficacy claim follows");
    expect(result.stdout).toMatch(/^strategy\s+success \(avg@k\)\s+95% CI/m);
    for (const strategy of ["react", "notebook", "tasks", "todos", "plan-tool", "plan-execute", "rewoo", "compiler"]) {
      expect(result.stdout).toMatch(new RegExp(`^${strategy}\\s+58%\\s+32%–81%\\s+12\\s`, "m"));
    }
    expect(existsSync(join(home, "stepwise-eval", "report.html"))).toBe(true);
    expect(readFileSync(join(home, "stepwise-eval", "report.html"), "utf8")).toContain("SCRIPTED MODEL");
  }, 320_000);

  it("refuses bad arguments in one line with exit code 2", async () => {
    const home = freshHome();
    for (const [args, message] of [
      [["--trials", "0"], /--trials.*at least 1/],
      [["--strategies", "notebook,nope"], /unknown strategy "nope"/],
      [["--suite", join(home, "missing")], /suite folder .* does not exist/],
      [["--model", "scripted:other"], /unknown scripted model "scripted:other"/],
      [["--model", "openai:gpt-4o-mini"], /needs an API key: set OPENAI_API_KEY/],
    ] as const) {
      const result = await runCli(["eval", "--model", "scripted:demo", ...args], { home, cwd: home });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      // The scripted banner waits for options that can run: an argument error is all that is said.
      expect(result.stdout, args.join(" ")).toBe("");
    }
  }, cliTestTimeout(5));

  it("prints every line within a terminal's width, counting trials and steps in words that agree", async () => {
    const home = freshHome();
    const suite = join(home, "suite");
    // A task with nothing to write: the scripted react agent answers it in one step.
    mkdirSync(join(suite, "a-answer", "setup"), { recursive: true });
    writeFileSync(join(suite, "a-answer", "task.json"), JSON.stringify({ title: "Answer", kind: "data", maxSteps: 5 }));
    writeFileSync(join(suite, "a-answer", "prompt.md"), "Say what the workspace holds.\n");
    writeFileSync(join(suite, "a-answer", "check.mjs"), 'console.log("any answer passes");\n');
    const result = await runCli(["eval", "--model", "scripted:demo", "--suite", suite, "--strategies", "all", "--trials", "1", "--out", join(home, "out")], {
      home,
      cwd: home,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.filter((line) => line.length > 100)).toEqual([]);
    expect(result.stdout).toMatch(/^trial 1\/8 finished: react a-answer #1 passed \(1 step\)$/m);
    expect(result.stdout).not.toMatch(/\(1 steps\)|\b1 tasks\b/);
    expect(result.stdout).toContain("model scripted:demo; 1 task × 1 trial per strategy\n");
    // How the trials ended, then what they cost: each strategy is a row of both tables.
    expect(result.stdout).toMatch(/^strategy +success \(avg@k\) +95% CI +trials +wrong-answer +gave-up +max-steps +error$/m);
    expect(result.stdout).toMatch(/^strategy +input\/trial +cached\/trial +output\/trial +steps\/trial +wall\/trial +cost \(total\)$/m);
    expect(result.stdout.match(/^compiler /gm)).toHaveLength(2);
  }, cliTestTimeout(8));
});
