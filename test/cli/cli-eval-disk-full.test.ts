import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, statfsSync, writeSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { appendTrialRecord, readTrialRecords, type TrialRecord } from "../../src/eval/trial-record.js";
import { CLI, freshHome, runCli } from "./cli-harness.js";
import { blockingCheck, PLAIN_CHECK, task } from "./eval-tasks.js";

/** A small tmpfs of its own: a real file system that fills up (mounting needs root, as in CI's container). */
function smallFileSystem(): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-full-"));
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", dir], { encoding: "utf8" });
  return mounted.status === 0 ? dir : undefined;
}
const disk = smallFileSystem();
afterAll(() => {
  if (disk) spawnSync("umount", [disk]);
});
// Whatever a test did, the next one starts with room.
afterEach(() => {
  if (disk) rmSync(join(disk, "filler"), { force: true });
});

/** Fills the file system up to all but `leave` bytes (in whole blocks) with one file; removing it frees the space again. */
function fill(dir: string, leave: number): string {
  const filler = join(dir, "filler");
  const { bavail, bsize } = statfsSync(dir);
  const fd = openSync(filler, "w");
  try {
    const chunk = Buffer.alloc(bsize);
    for (let blocks = bavail - Math.ceil(leave / bsize); blocks > 0; blocks--) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  return filler;
}

describe.skipIf(!disk)("stepwise eval on a full disk (a real tmpfs)", () => {
  it("records trials the full disk failed as the machine's, re-runs them next time, and never leaves half a line in results.jsonl", async () => {
    const home = freshHome();
    const suite = join(home, "suite");
    const blocking = await blockingCheck();
    task(suite, "a-first", blocking.check);
    task(suite, "b-second", PLAIN_CHECK);
    task(suite, "c-third", PLAIN_CHECK);
    const out = join(disk!, "out");
    const args = ["eval", "--model", "scripted:demo", "--suite", suite, "--strategies", "react", "--trials", "1", "--out", out];

    // The disk fills while a-first's check runs: one block is left, for its record; b-second's run finds none.
    const child = spawn(process.execPath, [CLI, ...args], { cwd: home, env: { PATH: process.env["PATH"] ?? "", TMPDIR: tmpdir(), STEPWISE_HOME: home } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    await blocking.entered;
    const filler = fill(disk!, 4096);
    blocking.release();
    const code = await exited;
    await blocking.close();

    expect(code, stderr).toBe(1);
    expect(stdout).toContain("trial 1/3 finished: react a-first #1 passed");
    expect(stdout).toMatch(/trial react b-second #1 failed because of the machine, not the model: SQLITE_FULL: database or disk is full; not counted, it runs again next time/);
    expect(stdout).not.toContain("c-third");
    // The summary still comes, saying what stopped the eval; only the report could not be written.
    expect(stdout).toContain("1 trial(s) failed because of the machine, not the model (SQLITE_FULL: database or disk is full), so the eval stopped");
    expect(stderr).toMatch(/^stepwise: \S+report\.html could not be written \(ENOSPC: no space left on device, write\); the same command writes it$/m);
    const text = readFileSync(join(out, "results.jsonl"), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(readTrialRecords(join(out, "results.jsonl")).map((r) => [r.task, r.outcome])).toEqual([
      ["a-first", "passed"],
      ["b-second", "machine-failure"],
    ]);

    // With room again, the same command runs what the machine failed and what never started; the rest stays.
    rmSync(filler);
    const resumed = await runCli(args, { home, cwd: home, timeoutMs: 120_000 });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toContain("a-first #1");
    expect(resumed.stdout).toContain("react b-second #1 passed");
    expect(resumed.stdout).toContain("react c-third #1 passed");
    expect(resumed.stdout).toMatch(/^react\s+100%/m);
    const records = readTrialRecords(join(out, "results.jsonl"));
    expect(records.filter((r) => r.outcome === "passed").map((r) => r.task)).toEqual(["a-first", "b-second", "c-third"]);
  }, 180_000);

  it("drops a cut-off last line of results.jsonl on open, saying so, and runs that trial again", async () => {
    const home = freshHome();
    const suite = join(home, "suite");
    task(suite, "a-first", PLAIN_CHECK);
    task(suite, "b-second", PLAIN_CHECK);
    const out = join(disk!, "cut-off");
    const args = ["eval", "--model", "scripted:demo", "--suite", suite, "--strategies", "react", "--trials", "1", "--out", out];
    expect((await runCli(args, { home, cwd: home })).code).toBe(0);
    const results = join(out, "results.jsonl");
    const [first, second] = readFileSync(results, "utf8").split("\n");
    // What an append cut short leaves: a line without its end.
    rmSync(results);
    appendFileSync(results, `${first}\n${second?.slice(0, 80)}`);
    const again = await runCli(args, { home, cwd: home });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^stepwise: .*results\.jsonl ended in a cut-off line \(80 bytes of a trial being written when the eval stopped\); it was dropped, and that trial runs again$/m);
    expect(again.stdout).toContain("react b-second #1 passed");
    expect(readTrialRecords(results).map((r) => r.task)).toEqual(["a-first", "b-second"]);
    expect(existsSync(results)).toBe(true);
  }, 120_000);

  it("cuts a record the full disk let only part of back off, so the file keeps whole lines", () => {
    const results = join(disk!, "partial", "results.jsonl");
    spawnSync("mkdir", ["-p", join(disk!, "partial")]);
    // A first line that leaves its block nearly full: the next record fits only in part.
    const record = (task: string, reason: string): TrialRecord => ({
      scripted: true, model: "scripted:demo", strategy: "react", task, trial: 1, runId: null, outcome: "passed", reason,
      steps: 1, inputTokens: 1, cachedInputTokens: 0, outputTokens: 1, costUsd: null, wallMs: 1, finishedAt: "2026-01-01T00:00:00.000Z",
    });
    const first = record("a", "");
    const padding = statfsSync(disk!).bsize - 100 - Buffer.byteLength(`${JSON.stringify(first)}\n`);
    appendTrialRecord(results, record("a", "x".repeat(padding)));
    const before = readFileSync(results, "utf8");
    fill(disk!, 0);
    expect(() => appendTrialRecord(results, record("b", "y".repeat(400)))).toThrow(/ENOSPC/);
    expect(readFileSync(results, "utf8")).toBe(before);
    expect(readTrialRecords(results).map((r) => r.task)).toEqual(["a"]);
  });
});
