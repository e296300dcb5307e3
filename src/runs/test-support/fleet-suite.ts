import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { RunRecord } from "../../stores/run-store.js";
import { workRuns } from "../run-worker.js";
import { openRuns, type Runs } from "../runs.js";
import { duplicateCalls, fleetModel, fleetTask, ledgerTool, readLedger } from "./fleet-workload.js";

const STEPS = 3;
const MODEL_MS = 5;

type Worker = {
  name: string;
  runs: Runs;
  /** How often it found nothing to claim, and whether that was so after the last run it drove ended. */
  idle: number;
  idleSinceRun: boolean;
  taken: { run: RunRecord; status: string }[];
  stop: AbortController;
  done: Promise<void>;
};

/**
 * `workers` workers, each with stores of its own on `store` (as a separate process has), drain `runs`
 * queued runs at `concurrency` each. Then, every worker idle, one more run is queued: how long it
 * waited for a claim is read off the store's own times (queued, lease taken), not measured by a timer.
 */
export async function drainFleet(store: string, opts: { workers: number; runs: number; concurrency: number }): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-fleet-"));
  const ledger = join(dir, "ledger.txt");
  const starter = openRuns({ store });
  const workers: Worker[] = [];
  let finished = 0;
  let onFinished: (() => void) | undefined;
  try {
    for (let i = 0; i < opts.workers; i++) {
      const name = `worker-${i}`;
      const runs = openRuns({ store, holder: name, models: () => () => fleetModel(STEPS, MODEL_MS), tools: () => [ledgerTool(ledger, name)] });
      const worker: Worker = { name, runs, idle: 0, idleSinceRun: false, taken: [], stop: new AbortController(), done: Promise.resolve() };
      worker.done = workRuns(runs, {
        signal: worker.stop.signal,
        concurrency: opts.concurrency,
        // Only an announcement can wake an idle worker in time: its fallback look comes after the test's end.
        scanMs: 600_000,
        onIdle: () => {
          worker.idle++;
          worker.idleSinceRun = true;
        },
        onRun: (run, result) => {
          worker.taken.push({ run, status: result instanceof Error ? result.message : result.status });
          worker.idleSinceRun = false;
          finished++;
          onFinished?.();
        },
      });
      workers.push(worker);
    }
    const allFinished = (count: number) =>
      new Promise<void>((resolve) => {
        onFinished = () => finished >= count && resolve();
        onFinished();
      });

    const ids = new Set<string>();
    for (let k = 0; k < opts.runs; k++) ids.add(await starter.enqueue({ task: fleetTask(k), strategy: "react", model: "fleet", settings: { workspace: dir } }));
    await allFinished(opts.runs);

    // Each run was driven by exactly one worker, start to end, each of its calls once.
    const taken = workers.flatMap((w) => w.taken.map(({ run, status }) => ({ run, status, worker: w.name })));
    expect(taken.map((t) => t.run.id).sort()).toEqual([...ids].sort());
    expect(taken.filter((t) => t.status !== "final")).toEqual([]);
    const lines = readLedger(ledger);
    expect(lines).toHaveLength(opts.runs * (STEPS - 1));
    expect(duplicateCalls(lines)).toBe(0);
    const driverOf = new Map(taken.map((t) => [t.run.task.split(" ").at(-1), t.worker]));
    for (const line of lines) expect(line.worker).toBe(driverOf.get(line.run));
    // The work was shared, and nobody spun: a worker looks again only when woken (a run queued, one of its drives ended).
    expect(workers.filter((w) => w.taken.length > 0).length).toBeGreaterThan(1);
    for (const w of workers) expect(w.idle).toBeLessThanOrEqual(opts.runs + w.taken.length + 10);

    // Every worker idle again: a run queued now is claimed at once, on its announcement.
    await expect.poll(() => workers.every((w) => w.idleSinceRun)).toBe(true);
    const late = await starter.enqueue({ task: fleetTask(opts.runs), strategy: "react", model: "fleet", settings: { workspace: dir } });
    await allFinished(opts.runs + 1);
    const claimed = workers.flatMap((w) => w.taken).find(({ run }) => run.id === late)?.run;
    const waitedMs = Date.parse(claimed?.lease?.takenAt ?? "") - Date.parse(claimed?.createdAt ?? "");
    expect(waitedMs).toBeGreaterThanOrEqual(0);
    expect(waitedMs).toBeLessThan(1_000);
  } finally {
    for (const w of workers) w.stop.abort();
    await Promise.all(workers.map((w) => w.done.catch(() => undefined)));
    await Promise.all(workers.map((w) => w.runs.close()));
    await starter.close();
  }
}
