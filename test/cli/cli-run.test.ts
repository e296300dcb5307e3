import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { CLI, freshHome, runCli, workspace } from "./cli-harness.js";

describe("stepwise demo", () => {
  it("runs every strategy offline and each writes its report", async () => {
    const result = await runCli(["demo"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    for (const strategy of ["notebook", "tasks", "todos", "plan-tool", "plan-execute", "rewoo", "compiler"]) {
      expect(result.stdout).toContain(`=== ${strategy} ===`);
    }
    // Six strategies write the summary table; the compiler's report holds the files read in parallel.
    expect(result.stdout.match(/\| notes\/risks\.md \| 5 \| Risks \|/g)).toHaveLength(6);
    expect(result.stdout).toContain("## notes/risks.md\n1\t# Risks");
  });
});

describe("stepwise run", () => {
  it.each(["notebook", "tasks", "todos", "plan-tool", "plan-execute", "rewoo"])("does the job with the %s strategy", async (strategy) => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(["run", "Write a report", "--strategy", strategy, "--model", "scripted:demo", "--workspace", ws], { home });
    expect(result.code, result.stderr).toBe(0);
    const report = readFileSync(join(ws, "report.md"), "utf8");
    expect(report).toContain("| docs/a.md | 2 | Alpha |");
    expect(report).toContain("| b.txt | 1 | bravo |");
  });

  it("does the job with the compiler strategy, reading the files in parallel", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(["run", "Write a report", "--strategy", "compiler", "--model", "scripted:demo", "--workspace", ws], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^plan: llm-compiler plan \(round 2\) 4\/4 done$/m);
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("## docs/a.md\n1\t# Alpha\n2\tline two");
  });

  it("prints a plain log when stdout is not a terminal", async () => {
    const home = freshHome();
    const result = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", workspace(home)], { home });
    expect(result.stdout).toMatch(/^plan: Workspace report 1\/3 done; now: Read every file$/m);
    expect(result.stdout).toMatch(/^· write_file \{"path":"report.md"/m);
    expect(result.stdout).not.toContain("\x1b[");
  });

  it.each([
    [["run", "x", "--strategy", "magic"], /option '-s, --strategy <name>' argument 'magic' is invalid. Allowed choices are notebook, tasks/],
    [["run", "x", "--model", "nope:model"], /Unknown model provider "nope"/],
    [["run", "x", "--model", "openai:gpt-4o-mini"], /OPENAI_API_KEY/],
    [["run", "x", "--model", "scripted:other"], /unknown scripted model "scripted:other"/],
    [["run", "x", "--model", "scripted:demo", "--workspace", "/no/such/dir"], /workspace \/no\/such\/dir does not exist/],
    [["run", "x", "--max-steps", "0"], /expected a whole number of at least 1/],
    [["run", "--model", "scripted:demo"], /a task is required/],
    [["frobnicate"], /unknown command 'frobnicate'/],
  ])("refuses %j with one readable line and a non-zero exit", async (args, message) => {
    const result = await runCli(args);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports an unreachable PostgreSQL board in one line", async () => {
    const home = freshHome();
    const args = ["run", "x", "--strategy", "tasks", "--model", "scripted:demo", "--workspace", workspace(home)];
    const result = await runCli([...args, "--store", "postgres://someone:secret@127.0.0.1:1/none"], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^stepwise: cannot reach the task store postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none: /);
    expect(result.stderr).not.toContain("secret");
  });

  it("stops at --max-steps with state saved; --resume goes on with the same limit per invocation, without redoing steps", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const first = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--max-steps", "4"], { home });
    expect(first.code).toBe(3);
    expect(first.stdout).toContain("stopped at the step limit; state saved");
    expect(existsSync(join(ws, "report.md"))).toBe(false);

    // The saved limit applies again: four more steps, then another stop.
    const second = await runCli(["run", "--resume"], { home });
    expect(second.code, second.stderr).toBe(3);
    expect(second.stdout).toMatch(/^resuming run /m);
    expect(second.stdout).toContain("stopped at the step limit; state saved");

    const third = await runCli(["run", "--resume", "--max-steps", "50"], { home });
    expect(third.code, third.stderr).toBe(0);
    // The plan was created once, in the first run; the resumed runs never create it again.
    expect(second.stdout + third.stdout).not.toContain("create_plan");
    expect(third.stdout).toContain("I surveyed the workspace");
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");

    const fourth = await runCli(["run", "--resume"], { home });
    expect(fourth.code).toBe(2);
    expect(fourth.stderr).toMatch(/already finished; nothing to resume/);
  });
});

describe("stepwise run --approval", () => {
  it.each([
    ["plan-tool", "writes"],
    ["plan-execute", "all"],
    ["rewoo", "writes"],
    ["compiler", "all"],
    ["rewoo", "plan"],
  ])("refuses %s with --approval %s, which its workers would ignore, before anything runs", async (strategy, approval) => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(["run", "Report", "-s", strategy, "-m", "scripted:demo", "-w", ws, "--approval", approval], { home });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([
      `stepwise: --approval ${approval} does not work with the ${strategy} strategy (${approval === "plan" ? "it cannot pause its plan for approval" : "its workers run tools without asking"}); ` +
        "supported modes: notebook, tasks, todos: none|writes|plan|all; plan-tool, plan-execute: none|plan; rewoo, compiler: none",
    ]);
    expect(result.stdout).toBe("");
    expect(existsSync(join(ws, "report.md"))).toBe(false);
    expect((await runCli(["run", "--resume"], { home })).stderr).toContain("there is no run to resume");
  });

  it("asks before the plan and each write; approves from scripted input", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--approval", "all"], {
      home,
      input: "a\na\n",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("The agent wants to call create_plan with:");
    expect(result.stdout).toContain("The agent wants to call write_file with:");
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt |");
  });

  it("tells the model a rejection's reason and never runs the call", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--approval", "writes"], {
      home,
      input: "r not now, thanks\n",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/write_file .*→ The user rejected this call: not now, thanks/);
    expect(existsSync(join(ws, "report.md"))).toBe(false);
  });

  it("runs the plan as edited in $EDITOR", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const editor = join(home, "edit-plan.sh");
    writeFileSync(editor, `#!/bin/sh\nsed -i 's/"Workspace report"/"Edited report plan"/' "$1"\n`, { mode: 0o755 });
    const result = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--approval", "plan"], {
      home,
      input: "e\n",
      env: { EDITOR: editor },
    });
    expect(result.code, result.stderr).toBe(0);
    // The edited plan is the one that ran to the end (the model being told is covered in core's tests).
    expect(result.stdout).toMatch(/^plan: Edited report plan 3\/3 done$/m);
    expect(result.stdout).not.toMatch(/^plan: Workspace report/m);
  });

  it("stays paused with state saved when nobody answers, and --resume asks again", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const paused = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--approval", "writes"], { home });
    expect(paused.code).toBe(3);
    expect(paused.stdout).toContain("waiting for approval of: write_file; state saved.");
    const resumed = await runCli(["run", "--resume", "--workspace", ws, "--approval", "writes"], { home, input: "approve\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("The agent wants to call write_file with:");
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| docs/a.md |");
  });
});

describe("Ctrl-C", () => {
  it("stops cleanly with state saved; --resume finishes the run", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const child = spawn(process.execPath, [CLI, "run", "Report", "--model", "scripted:demo@150ms", "--workspace", ws], {
      cwd: home,
      env: { PATH: process.env["PATH"] ?? "", STEPWISE_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) =>
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("now: Read every file")) resolve();
      }),
    );
    child.kill("SIGINT");
    const code = await new Promise((resolve) => child.once("close", resolve));
    expect(code).toBe(130);
    expect(stderr).toContain("stopping after the current step");
    expect(stdout).toContain("stopped; state saved. Continue with: stepwise run --resume");
    expect(existsSync(join(ws, "report.md"))).toBe(false);

    const resumed = await runCli(["run", "--resume", "--workspace", ws], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).not.toContain("create_plan");
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
  });
});

describe("context folding in the CLI", () => {
  it("folds finished plan units past --context-budget and says so, still doing the job", async () => {
    const home = freshHome();
    const ws = workspace(home);
    for (let i = 1; i <= 4; i++) writeFileSync(join(ws, `long${i}.txt`), Array.from({ length: 40 }, (_, n) => `line ${n} of ${i}`).join("\n"));
    const result = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--context-budget", "800"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^context folded: \d+ unit\(s\), ~\d+ → ~\d+ tokens$/m);
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| long4.txt | 40 | line 0 of 4 |");
  });
});
