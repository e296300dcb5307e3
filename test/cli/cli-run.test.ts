import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { exitCodeOf, RUN_ENDINGS } from "../../src/cli/run-endings.js";
import { CLI, cliTestTimeout, freshHome, runCli, workspace } from "./cli-harness.js";

describe("stepwise demo", () => {
  it("runs every strategy offline and each writes its report", async () => {
    const result = await runCli(["demo"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Stepwise demo: scripted agents \(scripted:demo\), offline: no model is called/);
    expect(result.stdout.match(/^workspace: \/\S+stepwise-demo-\S+$/gm)).toHaveLength(7);
    for (const strategy of ["notebook", "tasks", "todos", "plan-tool", "plan-execute", "rewoo", "compiler"]) {
      expect(result.stdout).toContain(`=== ${strategy} ===`);
    }
    // Every strategy writes the summary table, the compiler too (from what its parallel reads returned).
    expect(result.stdout.match(/\| notes\/risks\.md \| 5 \| Risks \|/g)).toHaveLength(7);
    expect(result.stdout).not.toMatch(/^\d+\t/m);
  }, cliTestTimeout(7));
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
    expect(result.stdout).toMatch(/^plan: llm-compiler plan \(round 2\) 3\/3 done$/m);
    // The workflow's own tool calls and planning rounds show, as an agent's do.
    expect(result.stdout).toMatch(/^planning \(round 2\)…$/m);
    expect(result.stdout).toMatch(/^· read_file \{"path":"docs\/a\.md"\} → /m);
    const report = readFileSync(join(ws, "report.md"), "utf8");
    expect(report).toContain("| docs/a.md | 2 | Alpha |");
    expect(report).not.toMatch(/^\d+\t/m);
  });

  it.each(["plan-tool", "plan-execute", "rewoo", "compiler"])("with %s, says the report was not written when writing it fails", async (strategy) => {
    const home = freshHome();
    const ws = workspace(home);
    mkdirSync(join(ws, "report.md"));
    const result = await runCli(["run", "Write a report", "--strategy", strategy, "--model", "scripted:demo", "--workspace", ws], { home });
    expect(result.code, result.stderr).toBe(0);
    const answer = result.stdout.trim().split("\n").at(-1) ?? "";
    expect(answer).toMatch(/report\.md was not written/);
    expect(answer).not.toMatch(/report\.md is written|wrote report\.md/i);
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
    [["worker", "--concurrency", "0"], /option '--concurrency <n>' argument '0' is invalid. expected a whole number of at least 1/],
    [["worker", "--lease", "soon"], /option '--lease <ms>' argument 'soon' is invalid. expected a whole number of at least 1/],
    [["run", "--model", "scripted:demo"], /a task is required/],
    [["frobnicate"], /unknown command 'frobnicate'/],
  ])("refuses %j with one readable line and a non-zero exit", async (args, message) => {
    const result = await runCli(args);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports an unreachable PostgreSQL store in one line", async () => {
    const home = freshHome();
    const args = ["run", "x", "--strategy", "tasks", "--model", "scripted:demo", "--workspace", workspace(home)];
    const result = await runCli([...args, "--store", "postgres://someone:secret@127.0.0.1:1/none"], { home });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^stepwise: cannot reach the store postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/none: /);
    expect(result.stderr).not.toContain("secret");
  });

  it("stops at --max-steps with state saved; --resume goes on with the same limit per invocation, without redoing steps", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const first = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--max-steps", "4"], { home });
    expect(first.code).toBe(exitCodeOf("max-steps"));
    expect(first.stdout).toContain("stopped at the step limit; state saved");
    expect(existsSync(join(ws, "report.md"))).toBe(false);

    // The saved limit applies again: four more steps, then another stop.
    const second = await runCli(["run", "--resume"], { home });
    expect(second.code, second.stderr).toBe(exitCodeOf("max-steps"));
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
  }, cliTestTimeout(4));
});

describe("exit codes", () => {
  it("lists every way a run ends, with its code, in --help", async () => {
    const help = await runCli(["run", "--help"]);
    expect(help.code).toBe(0);
    for (const { code, meaning } of Object.values(RUN_ENDINGS)) expect(help.stdout).toContain(`${String(code).padStart(3)}  ${meaning}`);
    expect(new Set(Object.values(RUN_ENDINGS).map((e) => e.code)).size).toBe(Object.keys(RUN_ENDINGS).length);
  });

  it("are the README's table, code for code", () => {
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const table = readme.slice(readme.indexOf("exits with a code saying how the run ended"));
    const codes = [...table.slice(0, table.indexOf("\n\n#")).matchAll(/^\| (\d+) \| `([a-z-]+)` \|/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(codes).toEqual(Object.entries(RUN_ENDINGS).map(([ending, e]) => [e.code, ending]));
  });

  it("prints the version", async () => {
    const result = await runCli(["--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe((JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version);
  });
});

describe("stepwise run --approval", () => {
  it.each(["plan-tool", "plan-execute", "rewoo", "compiler"])(
    "with %s, pauses on the write under --approval writes, and writes once approved in a new process",
    async (strategy) => {
      const home = freshHome();
      const ws = workspace(home);
      const paused = await runCli(["run", "Report", "-s", strategy, "-m", "scripted:demo", "-w", ws, "--approval", "writes"], { home });
      expect(paused.code, paused.stderr).toBe(exitCodeOf("awaiting-user"));
      expect(paused.stdout).toContain("waiting for approval of: write_file; state saved.");
      expect(existsSync(join(ws, "report.md"))).toBe(false);
      const resumed = await runCli(["run", "--resume"], { home, input: "approve\n" });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt |");
    },
    cliTestTimeout(2),
  );

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

  it.each([
    ["notebook", /plan: Workspace report 2\/3 done/m],
    ["tasks", /plan: Task board 2\/3 done/m],
    ["todos", /plan: Todo list 2\/3 done/m],
  ])("with %s, tells the model a rejection's reason, never runs the call, and nothing claims the report was written", async (strategy, plan) => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(["run", "Report", "-s", strategy, "--model", "scripted:demo", "--workspace", ws, "--approval", "writes"], {
      home,
      input: "r not now, thanks\n",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/write_file .*→ The user rejected this call: not now, thanks/);
    expect(existsSync(join(ws, "report.md"))).toBe(false);
    // The plan ends short of the write, and the answer says why.
    expect(result.stdout).toMatch(plan);
    expect(result.stdout).not.toMatch(/3\/3 done/);
    const answer = result.stdout.trim().split("\n").at(-1) ?? "";
    expect(answer).toMatch(/^I surveyed the workspace and read its files, but report\.md was not written: write_file answered: The user rejected this call: not now, thanks/);
  });

  it("runs the plan as edited: piped, the edit is one JSON line, whatever EDITOR says", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const subtask = (name: string) => ({ name, description: "d", expected_outcome: "o" });
    const edited = {
      name: "Edited report plan",
      description: "d",
      expected_outcome: "o",
      subtasks: [subtask("Survey the workspace"), subtask("Read every file"), subtask("Write report.md")],
    };
    const result = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--approval", "plan"], {
      home,
      input: `e\n${JSON.stringify(edited)}\n`,
      // An editor that would hang without a terminal is never started.
      env: { EDITOR: "sleep 600 #" },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("the edited arguments, as one JSON object> ");
    // The edited plan is the one that ran to the end (the model being told is covered in core's tests).
    expect(result.stdout).toMatch(/^plan: Edited report plan 3\/3 done$/m);
    expect(result.stdout).not.toMatch(/^plan: Workspace report/m);
  });

  it("stays paused with state saved when nobody answers, and --resume asks again", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const paused = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--approval", "writes"], { home });
    expect(paused.code).toBe(exitCodeOf("awaiting-user"));
    expect(paused.stdout).toContain("waiting for approval of: write_file; state saved.");
    const resumed = await runCli(["run", "--resume", "--workspace", ws, "--approval", "writes"], { home, input: "approve\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("The agent wants to call write_file with:");
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| docs/a.md |");
  }, cliTestTimeout(2));
});

describe("decisions given up front", () => {
  it("--decisions FILE decides each waiting call in order, and the run acts on them", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const file = join(home, "decisions.json");
    writeFileSync(file, JSON.stringify([{ tool: "create_plan", action: "approve" }, { tool: "write_file", action: "reject", reason: "not today" }]));
    const result = await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws, "--approval", "all", "--decisions", file], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain("[a]pprove");
    expect(result.stdout).toMatch(/write_file .*→ The user rejected this call: not today/);
    expect(existsSync(join(ws, "report.md"))).toBe(false);
  });

  it("--decisions stays paused, saying why, when a decision does not fit what waits", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const file = join(home, "decisions.json");
    writeFileSync(file, JSON.stringify([{ tool: "write_file", action: "approve" }]));
    const result = await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws, "--approval", "all", "--decisions", file], { home });
    expect(result.code).toBe(exitCodeOf("awaiting-user"));
    expect(result.stderr).toBe("stepwise: decision 1 of --decisions is for write_file, but create_plan waits; the run stays paused\n");
  });

  it("--approve-all approves every call and plan without asking", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(["run", "Report", "-s", "plan-execute", "-m", "scripted:demo", "-w", ws, "--approval", "plan", "--approve-all"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toContain("[a]pprove");
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
  });

  it.each([
    ["[{\"action\":\"maybe\"}]", /^stepwise: --decisions .*decisions\.json at 0\.action: .*; give a JSON array of decisions/],
    ["{not json", /^stepwise: --decisions .*decisions\.json is not JSON/],
  ])("refuses a bad --decisions file %j before anything runs, in one line", async (text, message) => {
    const home = freshHome();
    const ws = workspace(home);
    const file = join(home, "decisions.json");
    writeFileSync(file, text);
    const result = await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws, "--approval", "all", "--decisions", file], { home });
    expect(result.code).toBe(exitCodeOf("usage"));
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stdout).toBe("");
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
  }, cliTestTimeout(2));
});

describe("context folding in the CLI", () => {
  it("folds finished plan units past --context-budget and says so, still doing the job", async () => {
    const home = freshHome();
    const ws = workspace(home);
    for (let i = 1; i <= 4; i++) writeFileSync(join(ws, `long${i}.txt`), Array.from({ length: 40 }, (_, n) => `line ${n} of ${i}`).join("\n"));
    const result = await runCli(["run", "Report", "--model", "scripted:demo", "--workspace", ws, "--context-budget", "800"], { home });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^context folded: \d+ unit\(s\)(, \d+ tool result\(s\))?; request ~[\d,]+ → ~[\d,]+ tokens$/m);
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| long4.txt | 40 | line 0 of 4 |");
  });
});
