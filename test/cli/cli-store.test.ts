import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliTestTimeout, freshHome, runCli } from "./cli-harness.js";

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
    // Human views number subtasks from 1, as the run's checklist does.
    expect(show.stdout).toContain("Subtasks (3/3 done)\n  [x] 1. Survey the workspace\n       Description: List every file in the workspace.\n");
    expect(show.stdout).toContain("       Outcome: Found: a.txt");
    const missing = await runCli(["plans", "show", "zzz"], { home });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe('stepwise: no plan with id "zzz"; list them with: stepwise plans list\n');
  }, cliTestTimeout(3));

  it("shows a plan in progress with the run view's marks, never the model's glued [WIP]name", async () => {
    const home = freshHome();
    const ws = join(home, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "a.txt"), "alpha\n");
    const stopped = await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws, "--max-steps", "5"], { home });
    expect(stopped.stdout).toMatch(/now: Read every file/);
    const id = (await runCli(["plans", "list"], { home })).stdout.slice(0, 8);
    const show = await runCli(["plans", "show", id], { home });
    expect(show.stdout).toContain("  [x] 1. Survey the workspace\n");
    expect(show.stdout).toContain("  [>] 2. Read every file\n");
    expect(show.stdout).not.toMatch(/\[WIP\]|\]\S/);
  }, cliTestTimeout(3));

  it("refuses a --store it cannot use in one line, exit 2", async () => {
    for (const args of [["plans", "list"], ["plans", "show", "abc"]]) {
      const result = await runCli([...args, "--store", "mysql://me@db/x"]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toBe('stepwise: unknown store "mysql://me@db/x"; use a SQLite file path or a postgres://user@host:port/db URL\n');
    }
  });

  it("says how to make a plan when there is none", async () => {
    const home = await homeWithRuns("todos");
    const list = await runCli(["plans", "list"], { home });
    expect(list.code).toBe(0);
    expect(list.stdout).toBe('No plans yet: the store is empty. Run: stepwise run "<task>" --strategy notebook\n');
  });
});

describe("stepwise tasks", () => {
  it("lists the latest board and shows a task with its edges", async () => {
    const home = await homeWithRuns("tasks");
    const list = await runCli(["tasks", "list"], { home });
    expect(list.code).toBe(0);
    const read = /^#(\d+) \[completed\] Read every file \(owner: tasks\) — #\d+ done$/m.exec(list.stdout)?.[1];
    const write = /^#(\d+) \[completed\] Write report\.md/m.exec(list.stdout)?.[1];
    expect(read && write, list.stdout).toBeTruthy();
    const show = await runCli(["tasks", "show", String(write)], { home });
    expect(show.stdout).toContain(`Task #${write}: Write report.md`);
    expect(show.stdout).toContain(`Blocked by: #${read} (completed)`);
  }, cliTestTimeout(2));

  it("explains a store without boards: not an error, for tasks as for plans", async () => {
    const home = await homeWithRuns("todos");
    const empty = await runCli(["tasks", "list"], { home });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe(`No task board yet in the store ${join(home, "stepwise.db")}. Run: stepwise run "<task>" --strategy tasks\n`);
    expect((await runCli(["tasks", "boards"], { home })).stdout).toBe(
      `No task boards in the store ${join(home, "stepwise.db")} yet. Run: stepwise run "<task>" --strategy tasks\n`,
    );
  }, cliTestTimeout(3));

  it("reads the board stepwise mcp made, lists every board, and names them when --board names none", async () => {
    const home = freshHome();
    // The MCP server opens its board (mcp) and stops when its input ends.
    const served = await runCli(["mcp"], { home });
    expect(served.code, served.stderr).toBe(0);
    const onlyMcp = await runCli(["tasks", "list"], { home });
    expect(onlyMcp.code, onlyMcp.stderr).toBe(0);
    expect(onlyMcp.stdout).toMatch(/^board mcp\nThe task board is empty\./);

    const ws = join(home, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "a.txt"), "alpha\n");
    const run = await runCli(["run", "Report", "-s", "tasks", "-m", "scripted:demo", "-w", ws], { home });
    const runId = /^run (\S+) /m.exec(run.stdout)![1]!;
    const boards = await runCli(["tasks", "boards"], { home });
    expect(boards.stdout).toBe([`${runId}  3 tasks: 0 pending, 0 in progress, 3 completed`, "mcp  0 tasks: 0 pending, 0 in progress, 0 completed", ""].join("\n"));
    // Without --board: the latest tasks run's board; --board takes the start of an id too.
    expect((await runCli(["tasks", "list"], { home })).stdout).toMatch(new RegExp(`^board ${runId}\n3 tasks: `));
    expect((await runCli(["tasks", "list", "--board", runId.slice(0, 8)], { home })).stdout).toMatch(new RegExp(`^board ${runId}\n`));
    expect((await runCli(["tasks", "show", "1", "--board", "mcp"], { home })).stderr).toBe(
      'stepwise: no task "1" on board mcp; list them with: stepwise tasks list --board mcp\n',
    );

    const missing = await runCli(["tasks", "list", "--board", "team"], { home });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `stepwise: there is no board team in the store ${join(home, "stepwise.db")}; its boards: ${runId} (3 tasks: 0 pending, 0 in progress, 3 completed); mcp (0 tasks: 0 pending, 0 in progress, 0 completed)\n`,
    );
    // Naming a board that is not there made none.
    expect((await runCli(["tasks", "boards"], { home })).stdout).not.toContain("team");
  }, cliTestTimeout(10));
});

describe("an unusable store", () => {
  it("names a corrupt store file and the fix, in one line", async () => {
    const home = freshHome();
    writeFileSync(join(home, "stepwise.db"), "not a database at all, just text\n".repeat(100));
    for (const args of [["plans", "list"], ["tasks", "list"], ["run", "x", "-m", "scripted:demo", "-w", home]]) {
      const result = await runCli(args, { home });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `stepwise: the store ${join(home, "stepwise.db")} is not a SQLite database (corrupt, or another file). Move it away to start a fresh store, or point STEPWISE_HOME at another folder\n`,
      );
    }
  });

  it("fails at once, in one line, when STEPWISE_HOME cannot be created", async () => {
    const result = await runCli(["run", "x", "-m", "scripted:demo"], { env: { STEPWISE_HOME: "/proc/nope/x" }, timeoutMs: 10_000 });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("stepwise: STEPWISE_HOME /proc/nope/x cannot be created (ENOENT at /proc/nope); point STEPWISE_HOME at a folder you can write\n");
  });
});
