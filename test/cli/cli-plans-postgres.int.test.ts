import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshSchema } from "../../src/stores/test-support/fresh-schema.js";
import { cliTestTimeout, freshHome, runCli, workspace } from "./cli-harness.js";

const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

describe("stepwise plans --store postgres://… (needs PostgreSQL on 127.0.0.1:5432)", () => {
  it("lists and shows the plan a run made in PostgreSQL, which the default SQLite store never held", async () => {
    // A schema of its own: plans list reads every scope, and other tests keep plans in the shared database.
    const schema = await freshSchema();
    drops.push(schema.drop);
    const home = freshHome();
    const ws = join(home, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "a.txt"), "alpha\n");
    const run = await runCli(["run", "Report", "--model", "scripted:demo", "--strategy", "notebook", "-w", ws, "--store", schema.url], { home });
    expect(run.code, run.stderr).toBe(0);
    const runId = /^run (\S{8})/m.exec(run.stdout)?.[1] ?? "";
    expect(runId).not.toBe("");

    const list = await runCli(["plans", "list", "--store", schema.url], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^\\S{36} {2}done {8}3/3 {2}Workspace report {2}\\(run ${runId}, `, "m"));
    const show = await runCli(["plans", "show", list.stdout.slice(0, 8), "--store", schema.url], { home });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^# Workspace report\n/);
    expect(show.stdout).toContain("Subtasks (3/3 done)\n  [x] 1. Survey the workspace\n");

    // The default SQLite store was never made.
    const local = await runCli(["plans", "list"], { home });
    expect(local.code).toBe(2);
    expect(local.stderr).toMatch(/^stepwise: there is no store at \S+stepwise\.db: nothing has run here yet/);
  }, cliTestTimeout(4));
});

describe("stepwise runs and tasks --store postgres://… (needs PostgreSQL on 127.0.0.1:5432)", () => {
  it("lists runs and finds one by the start of its id; without --board reads the only board, and names them when there are several", async () => {
    const schema = await freshSchema();
    drops.push(schema.drop);
    const home = freshHome();
    const ws = workspace(home);
    const store = ["--store", schema.url];
    const first = await runCli(["run", "Report", "-m", "scripted:demo", "-s", "tasks", "--board", "team", "-w", ws, ...store], { home });
    expect(first.code, first.stderr).toBe(0);
    const stopped = await runCli(["run", "Stop", "-m", "scripted:demo", "-s", "todos", "-w", ws, "--max-steps", "1", ...store], { home });
    expect(stopped.code).toBe(4);
    const stoppedId = /^run (\S+) /m.exec(stopped.stdout)![1]!;

    const list = await runCli(["runs", "list", "--status", "max-steps", ...store], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trimEnd().split("\n").slice(1)).toEqual([expect.stringMatching(new RegExp(`^${stoppedId.slice(0, 8)}  max-steps  todos .*  Stop$`))]);
    const show = await runCli(["runs", "show", stoppedId.slice(0, 6), ...store], { home });
    expect(show.stdout).toMatch(new RegExp(`^Run ${stoppedId}\n`));
    expect((await runCli(["runs", "show", "%", ...store], { home })).stderr).toMatch(/^stepwise: there is no run % in the store postgres:\/\//);

    expect((await runCli(["tasks", "list", ...store], { home })).stdout).toMatch(/^board team\n3 tasks: /);
    const second = await runCli(["run", "Report", "-m", "scripted:demo", "-s", "tasks", "--board", "other", "-w", ws, ...store], { home });
    expect(second.code, second.stderr).toBe(0);
    const unnamed = await runCli(["tasks", "list", ...store], { home });
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toMatch(
      /^stepwise: name the board to read with --board <id>; the store postgres:\/\/\S+ has 2: other \(3 tasks: 0 pending, 0 in progress, 3 completed\); team \(3 tasks: /,
    );
    expect((await runCli(["tasks", "boards", ...store], { home })).stdout).toBe(
      "other  3 tasks: 0 pending, 0 in progress, 3 completed\nteam  3 tasks: 0 pending, 0 in progress, 3 completed\n",
    );
  }, cliTestTimeout(10));
});
