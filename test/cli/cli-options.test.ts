import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/run-endings.js";
import { SqliteRunStore } from "../../src/stores/sqlite-run-store.js";
import { cliTestTimeout, freshHome, runCli, startCli, workspace } from "./cli-harness.js";

describe("options that would do nothing", () => {
  it("refuses --decisions and --approve-all when nothing waits for approval, before anything runs", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const file = join(home, "d.json");
    writeFileSync(file, "[]");
    for (const [flag, ...rest] of [["--approve-all"], ["--decisions", file]]) {
      const result = await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws, flag!, ...rest], { home });
      expect(result.code, flag).toBe(2);
      expect(result.stderr).toBe(`stepwise: ${flag} decides what waits for approval, but nothing waits without --approval writes, plan or all; add one, or leave ${flag} out\n`);
      expect(result.stdout).toBe("");
    }
    expect((await runCli(["runs", "list"], { home })).stdout).toMatch(/^No runs yet/);
    expect(existsSync(join(ws, "report.md"))).toBe(false);
  }, cliTestTimeout(3));

  it("takes --approve-all on --resume of a run whose saved approval mode makes calls wait", async () => {
    const home = freshHome();
    const ws = workspace(home);
    expect((await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws, "--approval", "writes"], { home })).code).toBe(exitCodeOf("awaiting-user"));
    const resumed = await runCli(["run", "--resume", "--approve-all"], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(join(ws, "report.md"))).toBe(true);
  }, cliTestTimeout(2));

  it("says in --help that each --resume gets --max-steps again", async () => {
    const help = await runCli(["run", "--help"]);
    expect(help.stdout.replace(/\s+/g, " ")).toContain("--max-steps <n> most model calls in this invocation: each --resume gets as many again");
  });

  it("says what stepwise worker --once leaves alone: a run another driver holds", async () => {
    const home = freshHome();
    const runs = new SqliteRunStore(join(home, "stepwise.db"));
    await runs.createRun({ id: "held-run-1", task: "t", strategy: "notebook", model: "scripted:demo" }, { workspace: home, approval: "none" }, "far-away-host:123:abc", 600_000);
    await runs.close();
    const result = await runCli(["worker", "--once"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^stepwise worker on \S+\nnothing more to drive now\n {2}run held-run-1 \(notebook\) is driven by far-away-host:123:abc; it is left alone \(at \d\d:\d\d:\d\d UTC unless renewed\)\n$/,
    );
  });
});

describe("stopping a run from outside", () => {
  it("SIGTERM stops the run after its step with state saved, prints how to go on, and exits 143", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const run = startCli(["run", "Report", "-m", "scripted:demo@300ms", "-w", ws], { home });
    await run.printed(/^· /m);
    run.child.kill("SIGTERM");
    const code = await run.exited;
    const [stdout, stderr] = [run.stdout(), run.stderr()];
    expect(code).toBe(exitCodeOf("terminated"));
    const id = /^run (\S+) /m.exec(stdout)![1]!;
    expect(stdout.endsWith(`\nstopped; state saved. Continue with: stepwise run --resume ${id}\n`)).toBe(true);
    expect(stderr).toContain("stopping after the current step (a second SIGTERM to quit at once)…\n");
    const resumed = await runCli(["run", "--resume", id], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(join(ws, "report.md"))).toBe(true);
  }, cliTestTimeout(2));

  it("Ctrl-C at an approval prompt stops asking: the run stays paused as saved, and the last lines say how to go on", async () => {
    const home = freshHome();
    const ws = workspace(home);
    // Input stays open and says nothing: the prompt would wait for ever.
    const run = startCli(["run", "Report", "-m", "scripted:demo", "-w", ws, "--approval", "writes"], { home, stdin: "open" });
    await run.printed(/\[a\]pprove, \[r\]eject <reason>, or \[e\]dit\? $/);
    run.child.kill("SIGINT");
    const code = await run.exited;
    const stdout = run.stdout();
    expect(code).toBe(exitCodeOf("aborted"));
    const id = /^run (\S+) /m.exec(stdout)![1]!;
    expect(stdout.endsWith(`waiting for approval of: write_file; state saved.\nApprove in the viewer (stepwise ui) or run stepwise run --resume ${id} in a terminal.\n`)).toBe(true);
    const resumed = await runCli(["run", "--resume", id.slice(0, 8)], { home, input: "a\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(existsSync(join(ws, "report.md"))).toBe(true);
  }, cliTestTimeout(2));
});

describe("a closed output", () => {
  it("ends any command quietly when the reader of its pipe has gone, as | head does", async () => {
    const home = freshHome();
    const ws = workspace(home);
    expect((await runCli(["run", "Report", "-s", "tasks", "-m", "scripted:demo", "-w", ws], { home })).code).toBe(0);
    // "no-such-run" is not hex, so it is never a prefix of a run's id ("0" was, for one run in 16).
    for (const args of [["runs", "list"], ["plans", "list"], ["tasks", "list"], ["tasks", "boards"], ["runs", "show", "no-such-run"], ["run", "Again", "-m", "scripted:demo", "-w", ws]]) {
      const run = startCli(args, { home });
      // The reading end closes before the command writes anything: its first write meets EPIPE.
      run.child.stdout?.destroy();
      const code = await run.exited;
      expect(code, args.join(" ")).toBe(args[1] === "show" ? 2 : exitCodeOf("output-closed"));
      expect(run.stderr(), args.join(" ")).toEqual(args[1] === "show" ? expect.stringMatching(/^stepwise: there is no run no-such-run /) : "");
    }
    // The run whose output closed stopped as if killed: --resume goes on from its last checkpoint.
    const resumed = await runCli(["run", "--resume"], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^resuming run \S+ \(notebook\): Again$/m);
  }, cliTestTimeout(8));
});

describe("what a run prints", () => {
  it("puts a piped answer on its prompt's line, so the next line starts a line of its own", async () => {
    const home = freshHome();
    const result = await runCli(["run", "Report", "-m", "scripted:demo", "-w", workspace(home), "--approval", "writes"], { home, input: "a\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^\[a\]pprove, \[r\]eject <reason>, or \[e\]dit\? a\n· write_file /m);
  });

  it("names a workflow run before its planner's first line", async () => {
    const home = freshHome();
    const result = await runCli(["run", "Report", "-s", "compiler", "-m", "scripted:demo", "-w", workspace(home)], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^run \S+ \(compiler\): Report\nplanning \(round 1\)…\n/);
  });
});
