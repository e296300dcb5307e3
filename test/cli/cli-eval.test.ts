import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, readFileSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../src/stores/sqlite-database.js";
import { SqliteRunStore } from "../../src/stores/sqlite-run-store.js";
import { readTrialRecords } from "../../src/eval/trial-record.js";
import { CLI, freshHome, runCli } from "./cli-harness.js";

/** A task folder: the scripted demo solves it by writing out.txt from solution/. */
function task(suite: string, id: string, check: string): void {
  const dir = join(suite, id);
  mkdirSync(join(dir, "setup"), { recursive: true });
  mkdirSync(join(dir, "solution", "files"), { recursive: true });
  writeFileSync(join(dir, "task.json"), JSON.stringify({ title: `Task ${id}`, kind: "code", maxSteps: 5 }));
  writeFileSync(join(dir, "prompt.md"), `Write out.txt for task ${id}.\n`);
  writeFileSync(join(dir, "setup", "readme.txt"), "write out.txt\n");
  writeFileSync(join(dir, "solution", "files", "out.txt"), "done\n");
  writeFileSync(join(dir, "check.mjs"), check);
}

const PLAIN_CHECK = `import { readFileSync } from "node:fs";
import { join } from "node:path";
if (readFileSync(join(process.argv[2], "out.txt"), "utf8") !== "done\\n") { console.log("out.txt is wrong"); process.exit(1); }
console.log("out.txt is right");
`;

// Says it has started (the file "entered"), then holds its trial unfinished until the test creates "release".
const BLOCKING_CHECK = `import { existsSync, writeFileSync } from "node:fs";
writeFileSync("entered", "");
while (!existsSync("release")) await new Promise((resolve) => setTimeout(resolve, 20));
${PLAIN_CHECK}`;

/** Resolves once `name` exists in `dir`. */
async function fileCreated(dir: string, name: string): Promise<void> {
  const watcher = watch(dir);
  try {
    while (!existsSync(join(dir, name))) await once(watcher, "change");
  } finally {
    watcher.close();
  }
}

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
    task(suite, "b-blocks", BLOCKING_CHECK);
    const out = join(home, "out");
    const args = ["eval", "--model", "scripted:demo", "--suite", suite, "--strategies", "react", "--trials", "1", "--out", out];

    const child = spawn(process.execPath, [CLI, ...args], { cwd: home, env: { PATH: process.env["PATH"] ?? "", STEPWISE_HOME: home }, timeout: 60_000 });
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
    await fileCreated(join(suite, "b-blocks"), "entered");
    child.kill("SIGKILL");
    await once(child, "close");
    const before = readTrialRecords(join(out, "results.jsonl"));
    expect(before.map((r) => r.task)).toEqual(["a-first"]);

    writeFileSync(join(suite, "b-blocks", "release"), "");
    const resumed = await runCli(args, { home, cwd: home, timeoutMs: 120_000 });
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
    expect(runs.get("Write out.txt for task a-first.")).toEqual(["finished"]);
    expect(runs.get("Write out.txt for task b-blocks.")).toEqual(["finished", "finished"]);
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
    }
  }, 60_000);
});
