import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshHome, runCli } from "./cli-harness.js";

async function homeWithRuns(...strategies: string[]): Promise<string> {
  const home = freshHome();
  const ws = join(home, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "a.txt"), "alpha\n");
  for (const strategy of strategies) {
    const result = await runCli(["run", "Report", "-s", strategy, "-m", "scripted:demo", "-w", ws], { home });
    expect(result.code, result.stderr).toBe(0);
  }
  return home;
}

describe("stepwise plans", () => {
  it("lists the notebook's plans and shows one in detail by id prefix", async () => {
    const home = await homeWithRuns("notebook");
    const list = await runCli(["plans", "list"], { home });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^\S{36} {2}done {8}3\/3 {2}Workspace report {2}\(run \w{8}, /m);
    const id = list.stdout.slice(0, 8);
    const show = await runCli(["plans", "show", id], { home });
    expect(show.stdout).toMatch(/^# Workspace report\n/);
    expect(show.stdout).toContain("- [x] Read every file\n\t- Created At:");
    expect(show.stdout).toContain("\t- Outcome: Found: a.txt");
    const missing = await runCli(["plans", "show", "zzz"], { home });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('stepwise: no plan with id "zzz"; list them with: stepwise plans list\n');
  });

  it("says how to make a plan when there is none", async () => {
    const list = await runCli(["plans", "list"]);
    expect(list.stdout).toContain('No plans yet. Run: stepwise run "<task>" --strategy notebook');
  });
});

describe("stepwise tasks", () => {
  it("lists the latest board and shows a task with its edges", async () => {
    const home = await homeWithRuns("tasks");
    const list = await runCli(["tasks", "list"], { home });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^#2 \[completed\] Read every file \(owner: tasks\) — #1 done$/m);
    const show = await runCli(["tasks", "show", "3"], { home });
    expect(show.stdout).toContain("Task #3: Write report.md");
    expect(show.stdout).toContain("Blocked by: #2 (completed)");
  });

  it("refuses to guess a shared board and explains an empty store", async () => {
    const shared = await runCli(["tasks", "list", "--store", "postgres://127.0.0.1:5432/test"]);
    expect(shared.stderr).toBe("stepwise: name the shared board to read with --board <id>\n");
    const empty = await runCli(["tasks", "list"]);
    expect(empty.stderr).toContain("no task board yet");
  });
});
