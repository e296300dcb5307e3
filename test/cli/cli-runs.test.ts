import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scriptedModel } from "../../src/models/scripted.js";
import { openRuns } from "../../src/runs/runs.js";
import { SqliteRunStore } from "../../src/stores/sqlite-run-store.js";
import { estimateCostUsd } from "../../src/models/model-prices.js";
import { cliTestTimeout, freshHome, runCli, workspace } from "./cli-harness.js";

const store = (home: string) => join(home, "stepwise.db");

describe("stepwise runs list", () => {
  it("lists every run with its id, status, strategy, time and cost, newest first, and filters by status", async () => {
    const home = freshHome();
    const ws = workspace(home);
    expect((await runCli(["run", "Write the report", "-m", "scripted:demo", "-w", ws], { home })).code).toBe(0);
    expect((await runCli(["run", "Stop early", "-m", "scripted:demo", "-w", ws, "--max-steps", "2"], { home })).code).toBe(4);
    // A run of a priced model (scripted here, as the model has no key): its cost is estimated at list prices.
    const priced = scriptedModel([{ toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, "Two files."], { id: "openai:gpt-4o-mini" });
    const runs = openRuns({ store: store(home) });
    const handle = await runs.start({ task: "Count the files", strategy: "todos", model: priced, settings: { workspace: ws } });
    expect((await handle.done).status).toBe("final");
    const usage = (await runs.stores.runs.modelUsage([handle.id]))[0]!;
    await runs.close();

    const list = await runCli(["runs", "list"], { home });
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID +STATUS +STRATEGY +TIME +COST +STARTED \(UTC\) +TASK$/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/).at(-1))).toEqual(["Count the files", "Stop early", "Write the report"]);
    const cost = estimateCostUsd("openai:gpt-4o-mini", usage)!;
    expect(lines[1]).toMatch(new RegExp(`^${handle.id.slice(0, 8)}  final +todos +\\d+\\.\\d s +\\$${cost.toFixed(4).replace(".", "\\.")}  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  Count the files$`));
    expect(lines[2]).toMatch(/^[0-9a-f]{8}  max-steps +notebook +\d+\.\d s +n\/a  /);

    const stopped = await runCli(["runs", "list", "--status", "max-steps,aborted"], { home });
    expect(stopped.stdout.trimEnd().split("\n").slice(1)).toEqual([expect.stringContaining("Stop early")]);
    const none = await runCli(["runs", "list", "--status", "failed"], { home });
    expect(none.stdout).toBe(`No run is failed; the store ${store(home)} has 3 run(s) of other statuses.\n`);
    const limited = await runCli(["runs", "list", "--limit", "1"], { home });
    expect(limited.stdout).toMatch(/Count the files\n… 2 more of 3 runs not shown; pass --limit to see more\.\n$/);

    const bad = await runCli(["runs", "list", "--status", "done"], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "stepwise: option '--status <list>' argument 'done' is invalid. expected one or more of: running, awaiting-user, final, no-answer, max-steps, failed, aborted (comma-separated).\n",
    );
  }, cliTestTimeout(7));
});

describe("run ids", () => {
  it("--resume takes the run id as plans list shows it (its first 8 characters)", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const stopped = await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws, "--max-steps", "3"], { home });
    expect(stopped.code).toBe(4);
    const shown = /\(run ([0-9a-f]{8}), /.exec((await runCli(["plans", "list"], { home })).stdout)?.[1];
    expect(shown).toBeDefined();
    const resumed = await runCli(["run", "--resume", shown!, "--max-steps", "50"], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(new RegExp(`^resuming run ${shown}[0-9a-f-]{28} \\(notebook\\): Report$`, "m"));
    expect(existsSync(join(ws, "report.md"))).toBe(true);
  }, cliTestTimeout(3));

  it("answers an ambiguous prefix with the runs it fits and a missing one with the store it looked in; a prefix is never a pattern", async () => {
    const home = freshHome();
    const file = store(home);
    const runs = new SqliteRunStore(file);
    for (const id of ["abc-1111", "abc-2222", "abd-3333"]) await runs.createRun({ id, task: `task ${id}`, strategy: "notebook", model: "scripted:demo" }, { workspace: home, approval: "none" }, "gone", 1);
    await runs.close();

    const ambiguous = await runCli(["runs", "show", "abc"], { home });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toBe(
      `stepwise: "abc" is the start of 2 run ids in the store ${file}: abc-2222 (notebook, running, "task abc-2222"); abc-1111 (notebook, running, "task abc-1111"). Give more of the id\n`,
    );
    const resume = await runCli(["run", "--resume", "ab"], { home });
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/^stepwise: "ab" is the start of 3 run ids in the store /);
    for (const pattern of ["%", "ab_-3333", "abc-1111x"]) {
      const missing = await runCli(["runs", "show", pattern], { home });
      expect(missing.code, pattern).toBe(2);
      expect(missing.stderr).toBe(`stepwise: there is no run ${pattern} in the store ${file}; list them with: stepwise runs list\n`);
    }
    const shown = await runCli(["runs", "show", "abd"], { home });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^Run abd-3333\nTask: +task abd-3333\n/);
    expect(shown.stdout).toContain("Status:    running, but nobody drives it");
    expect(shown.stdout).toContain("Continue with: stepwise run --resume abd-3333\n");
  }, cliTestTimeout(7));

  it("runs show gives a run's status, settings, use, plan and answer", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const ran = await runCli(["run", "Report", "-m", "scripted:demo", "-w", ws], { home });
    const id = /^run (\S+) /m.exec(ran.stdout)![1]!;
    const show = await runCli(["runs", "show", id.slice(0, 10)], { home });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`Run ${id}\nTask:      Report\nStrategy:  notebook · model scripted:demo\nStatus:    final: the run finished with its answer\n`);
    expect(show.stdout).toMatch(/^Used: +\d+ model call\(s\) · [\d,]+ input tokens \+ [\d,]+ output · cost n\/a \(no list price for scripted:demo\)$/m);
    expect(show.stdout).toContain(`Settings:  workspace ${ws} · approval none`);
    expect(show.stdout).toContain("Workspace report (3/3 done)\n  [x] 1. Survey the workspace\n");
    expect(show.stdout).toMatch(/\nAnswer:\n {2}I surveyed the workspace/);
    expect(show.stdout).not.toContain("Continue with");
  }, cliTestTimeout(2));
});

describe("commands that only read", () => {
  it("never create a store: a missing one is named, exit 2, and nothing is left behind", async () => {
    const home = freshHome();
    const file = store(home);
    for (const args of [["runs", "list"], ["runs", "show", "abc"], ["plans", "list"], ["plans", "show", "abc"], ["tasks", "list"], ["tasks", "show", "1"], ["tasks", "boards"]]) {
      const result = await runCli(args, { home });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toBe(
        `stepwise: there is no store at ${file}: nothing has run here yet. Start a run with stepwise run "<task>", or point --store or STEPWISE_HOME at a store\n`,
      );
    }
    const elsewhere = join(home, "other.db");
    expect((await runCli(["runs", "list", "--store", elsewhere], { home })).stderr).toContain(`there is no store at ${elsewhere}:`);
    expect(readdirSync(home)).toEqual([]);
  }, cliTestTimeout(8));
});
