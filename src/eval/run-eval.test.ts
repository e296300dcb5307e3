import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reactiveModel } from "../models/scripted.js";
import { SqliteRunStore } from "../stores/sqlite-run-store.js";
import { openSqliteDatabase } from "../stores/sqlite-database.js";
import { openStores } from "../runs/store-set.js";
import { SCRIPTED_NOTICE } from "./eval-figures.js";
import { BUILTIN_SUITE, loadSuite } from "./eval-task.js";
import { runEval } from "./run-eval.js";
import { wilsonInterval } from "./scoring.js";
import { readTrialRecords } from "./trial-record.js";

const outs: string[] = [];
const outDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-eval-test-"));
  outs.push(dir);
  return dir;
};
afterAll(() => outs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function runCount(store: string): Promise<number> {
  const db = openSqliteDatabase(store);
  const runs = new SqliteRunStore(db);
  try {
    return (await runs.listRuns(10_000)).length;
  } finally {
    await runs.close();
    db.close();
  }
}

describe("runEval with scripted:demo on the built-in suite", () => {
  // The demo solves 6 tasks, solves data-orders-json on odd trials only, and fails the other 5 in
  // each of the ways the eval tells apart: 2 wrong answers, 1 question to the user, 1 step limit, 1 error.
  const out = outDir();
  const evaluated = runEval({ model: "scripted:demo", out, strategies: ["notebook"], trials: 2, concurrency: 3 });

  it("gives exactly the expected scores per strategy, the baseline included", async () => {
    const result = await evaluated;
    expect(result.strategies).toEqual(["react", "notebook"]);
    for (const row of result.summary) {
      expect(row).toMatchObject({
        trials: 24,
        passed: 13,
        outcomes: { passed: 13, "wrong-answer": 5, "gave-up": 2, "max-steps": 2, error: 2 },
        costUsd: null,
      });
      // avg@2: six tasks at 1, one at 1/2, five at 0, over twelve tasks.
      expect(row.successRate).toBeCloseTo(6.5 / 12, 10);
      expect(row.interval).toEqual(wilsonInterval(13, 24));
    }
    const notebook = result.summary[1]!;
    expect(notebook.steps).toBeGreaterThan(result.summary[0]!.steps);
  });

  it("records every trial once, as scripted, with its run in the eval's store", async () => {
    const result = await evaluated;
    const records = readTrialRecords(result.files.results);
    expect(records).toHaveLength(48);
    expect(new Set(records.map((r) => `${r.task}/${r.strategy}/${r.trial}`)).size).toBe(48);
    expect(records.every((r) => r.scripted && r.model === "scripted:demo" && typeof r.runId === "string")).toBe(true);
    expect(await runCount(result.files.store)).toBe(48);
    const byTask = (task: string, trial: number) => records.find((r) => r.task === task && r.trial === trial && r.strategy === "react");
    expect(byTask("data-clean-dates", 1)).toMatchObject({ outcome: "gave-up" });
    expect(byTask("code-discounts-feature", 1)).toMatchObject({ outcome: "max-steps", steps: 40 });
    expect(byTask("research-incident-count", 1)?.reason).toContain("fails research-incident-count on purpose");
    expect(byTask("code-csv-quotes", 1)).toMatchObject({ outcome: "wrong-answer", reason: expect.stringContaining("quoted field") });
    expect(byTask("data-orders-json", 1)).toMatchObject({ outcome: "passed" });
    expect(byTask("data-orders-json", 2)).toMatchObject({ outcome: "wrong-answer" });
  });

  it("writes a self-contained HTML report that says it is scripted, with the chart and every trial's run", async () => {
    const result = await evaluated;
    const html = readFileSync(result.files.report, "utf8");
    expect(html).toContain(SCRIPTED_NOTICE);
    expect(html).toContain("<svg");
    // One point per strategy, each with its interval's whisker.
    expect(html.match(/<circle /g)).toHaveLength(2);
    expect(html.match(/<path d="M/g)).toHaveLength(2);
    expect(html).not.toMatch(/<(script|link|img)\b|src=/);
    for (const record of result.records) expect(html).toContain(`#run=${record.runId}`);
    expect(html).toContain("<tr><td>data-orders-json</td><td>1/2</td><td>1/2</td></tr>");
    expect(html).toContain("<tr><td>code-rename-api</td><td>2/2</td><td>2/2</td></tr>");
  });

  it("run again with the same --out, runs nothing that finished", async () => {
    const first = await evaluated;
    const again = await runEval({ model: "scripted:demo", out, strategies: ["notebook"], trials: 2 });
    expect(again.resumed).toBe(48);
    expect(again.summary).toEqual(first.summary);
    expect(await runCount(first.files.store)).toBe(48);
    expect(readTrialRecords(first.files.results)).toHaveLength(48);
  });

  it("refuses to mix another model's trials into the same --out", async () => {
    await evaluated;
    await expect(runEval({ model: "openai:gpt-4o-mini", out, strategies: ["notebook"], trials: 2 })).rejects.toThrow(/holds an eval of scripted:demo/);
  });
});

describe("runEval's limits", () => {
  const tasks = loadSuite(BUILTIN_SUITE).filter((t) => t.kind === "research");

  it("never runs more trials at once than --concurrency", async () => {
    let inFlight = 0;
    let most = 0;
    // Each model call waits for a second one to arrive: two trials run at once, or the eval would hang here.
    let waiting: (() => void) | undefined;
    const answer = async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      if (waiting) {
        waiting();
        waiting = undefined;
      } else await new Promise<void>((resolve) => (waiting = resolve));
      inFlight--;
    };
    const result = await runEval({
      model: "scripted:counting",
      out: outDir(),
      suite: tasks,
      strategies: ["react"],
      trials: 2,
      concurrency: 2,
      models: () => () => {
        const model = reactiveModel(() => "I could not find it.");
        return { id: model.id, generate: async (req) => (await answer(), model.generate(req)) };
      },
    });
    expect(result.records).toHaveLength(8);
    expect(most).toBe(2);
  });

  it("stops at the token budget: no trial starts after it is spent, and the report says so", async () => {
    // The demo solves this task in two model calls: a corpus search, then the answer.
    const suite = tasks.filter((t) => t.id === "research-latest-limit");
    const result = await runEval({ model: "scripted:demo", out: outDir(), suite, strategies: ["react"], trials: 3, maxTokens: 1 });
    expect(result.budget).toMatchObject({ maxTokens: 1, exhausted: true });
    // The first trial's first model call spends the budget: that trial stops before its answer, and none after it starts.
    expect(result.records).toHaveLength(0);
    expect(result.notRun).toBe(3);
    expect(result.budget?.spent).toBeGreaterThan(1);
    expect(readFileSync(result.files.report, "utf8")).toContain("The token budget (1) is spent");
  });
});

describe("runEval after a kill mid-run", () => {
  it("marks aborted the runs a dead eval left running, so nothing drives them on; live drivers' runs stay", async () => {
    const out = outDir();
    const dead = spawn(process.execPath, ["-e", ""]);
    const [, deadPid] = [await once(dead, "exit"), dead.pid];
    const stores = openStores(join(out, "runs.db"));
    const settings = { workspace: out, approval: "none" as const };
    await stores.runs.createRun({ id: "killed", task: "t", strategy: "react", model: "scripted:demo" }, settings, `${hostname()}:${deadPid}:x`, 60_000);
    await stores.runs.createRun({ id: "alive", task: "t", strategy: "react", model: "scripted:demo" }, settings, `${hostname()}:${process.pid}:y`, 60_000);
    await stores.close();

    const suite = loadSuite(BUILTIN_SUITE).filter((t) => t.id === "research-latest-limit");
    const result = await runEval({ model: "scripted:demo", out, suite, strategies: ["react"], trials: 1 });
    expect(result.abortedRuns).toBe(1);
    const db = openSqliteDatabase(result.files.store);
    const runs = new SqliteRunStore(db);
    const status = async (id: string) => (await runs.getRun(id))?.status;
    expect([await status("killed"), await status("alive")]).toEqual(["aborted", "running"]);
    await runs.close();
    db.close();
  });
});

describe("runEval's --out folder", () => {
  it("is held by one eval at a time; a lock left by a dead process is taken over", async () => {
    const out = outDir();
    const suite = loadSuite(BUILTIN_SUITE).filter((t) => t.id === "research-latest-limit");
    const first = runEval({ model: "scripted:demo", out, suite, strategies: ["react"], trials: 1 });
    await expect(runEval({ model: "scripted:demo", out, suite, strategies: ["react"], trials: 1 })).rejects.toThrow(/another eval \(process \d+\) is writing to/);
    await first;
    const dead = spawn(process.execPath, ["-e", ""]);
    await once(dead, "exit");
    writeFileSync(join(out, "eval.lock"), String(dead.pid));
    expect((await runEval({ model: "scripted:demo", out, suite, strategies: ["react"], trials: 1 })).resumed).toBe(1);
  });
});

describe("the plain ReAct baseline", () => {
  it("offers the model the same tools as a planning strategy, without the planning plugin's", async () => {
    const seen = new Map<string, string[]>();
    const suite = loadSuite(BUILTIN_SUITE).filter((t) => t.id === "research-latest-limit");
    await runEval({
      model: "scripted:tools",
      out: outDir(),
      suite,
      strategies: ["todos"],
      trials: 1,
      models: (_task, strategy) => () =>
        reactiveModel((req) => {
          seen.set(strategy, req.tools.map((t) => t.name).sort());
          return "done";
        }),
    });
    const baseline = seen.get("react");
    // Context folding (its recall tool) is part of every agent, the baseline included: only planning differs.
    expect(baseline).toEqual(["ask_user", "edit_file", "list_dir", "read_document", "read_file", "recall", "search", "search_corpus", "write_file"]);
    expect(seen.get("todos")).toEqual([...baseline!, "write_todos"].sort());
  });
});
