import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/run-endings.js";
import { cliTestTimeout, freshHome, runCli, workspace } from "./cli-harness.js";

const run = (strategy: string, ws: string) => ["run", "Report", "--strategy", strategy, "--model", "scripted:demo", "--workspace", ws, "--approval", "plan"];

describe("stepwise run --approval plan with workflows", () => {
  it("plan-execute runs the steps as edited, piped as one JSON line", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(run("plan-execute", ws), { home, input: `e\n${JSON.stringify(["Read every file, docs first", "Write report.md"])}\n` });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The planner proposes this plan for "Report":\n  1. Read every file\n  2. Write report.md\n');
    // Piped answers are not echoed, so the checklist line follows the prompt on the same line.
    expect(result.stdout).toMatch(/(plan: plan-and-execute plan 0\/2 done; )?now: Read every file, docs first$/m);
    expect(result.stdout).not.toMatch(/now: Read every file$/m);
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| docs/a.md | 2 | Alpha |");
  });

  it("plan-execute re-plans after a rejection and runs nothing after a second one", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(run("plan-execute", ws), { home, input: "r read the docs first\nreject still no\n" });
    expect(result.code, result.stderr).toBe(exitCodeOf("no-answer"));
    expect(result.stdout.match(/The planner proposes this plan/g)).toHaveLength(2);
    expect(result.stdout).toContain('Nothing was done: the user rejected the plan twice. Their feedback: "read the docs first", then "still no".');
    expect(existsSync(join(ws, "report.md"))).toBe(false);
  });

  it("plan-tool asks before its subtasks run and runs them once approved", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(run("plan-tool", ws), { home, input: "a\n" });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("The planner proposes this plan for");
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
  });

  it("pauses into the saved run when nobody answers, and --resume asks again and runs the plan", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const result = await runCli(run("plan-execute", ws), { home });
    expect(result.code, result.stderr).toBe(exitCodeOf("awaiting-user"));
    expect(result.stdout).toContain("waiting for approval of: plan; state saved.");
    expect(existsSync(join(ws, "report.md"))).toBe(false);
    const resumed = await runCli(["run", "--resume"], { home, input: "a\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('The planner proposes this plan for "Report":\n  1. Read every file\n  2. Write report.md\n');
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| docs/a.md | 2 | Alpha |");
  }, cliTestTimeout(2));
});
