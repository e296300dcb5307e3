import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshSchema } from "../../src/stores/test-support/fresh-schema.js";
import { freshHome, runCli } from "./cli-harness.js";

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

    const local = await runCli(["plans", "list"], { home });
    expect(local.stdout).toBe('No plans yet: the store is empty. Run: stepwise run "<task>" --strategy notebook\n');
  });
});
