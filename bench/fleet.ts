// A fleet of worker processes draining queued runs on PostgreSQL: 1,000 runs of 10 steps each (a step
// is one model call of a scripted model that takes 200 ms; nine of the ten call a tool that appends one
// line to a ledger file, the tenth answers), queued with runs.enqueue, then drained by 4 worker
// processes (bench/fleet-worker.ts: openRuns + workRuns, as `stepwise worker` runs them) at concurrency
// 64 each. The clock starts once every worker has loaded and stops when the last run has finished.
// - makespan_over_ideal: the makespan over runs × steps × 200 ms ÷ (workers × concurrency);
// - runs_per_second; duplicate_tool_calls (ledger lines for a run and step already there); stuck_runs
//   (not finished when the bench gives up: no run finished for a minute);
// - db_writes_per_step: rows inserted or updated in the store's tables (queueing the runs included), per step
//   made (a logged model call); db_bytes_per_step: those tables' size (indexes and TOAST included) at the end, per step.
// Then the same with one worker process killed (kill -9) every 10 s, the first 5 s in (a drain may
// take less than 10 s), round robin, and a new one started in its place: its runs are taken over once
// their leases (LEASE_MS) run out. Those figures carry "chaos":"kill". Each side runs in a schema of
// its own, dropped at the end.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { openRuns } from "../src/runs/runs.js";
import { duplicateCalls, fleetTask, readLedger } from "../src/runs/test-support/fleet-workload.js";
import { freshSchema } from "../src/stores/test-support/fresh-schema.js";
import type { Benchmark, BenchFigure } from "./figure.js";

const BENCH = "fleet";
const RUNS = 1000;
const STEPS = 10;
const MODEL_MS = 200;
const WORKERS = 4;
const CONCURRENCY = 64;
/** How long a worker's lease lasts without a heartbeat: how soon a killed worker's runs are taken over. */
const LEASE_MS = 5_000;
const KILL_EVERY_MS = 10_000;
const IDEAL_MS = (RUNS * STEPS * MODEL_MS) / (WORKERS * CONCURRENCY);
/** Runs still unfinished once none has finished for this long are stuck: the fleet no longer moves them. */
const STALL_MS = 60_000;
const WORKER_SCRIPT = fileURLToPath(new URL("./fleet-worker.ts", import.meta.url));

type Chaos = "none" | "kill";

/** A worker process, started and loaded; `go` lets it take work. */
async function startWorker(url: string, ledger: string): Promise<ChildProcessWithoutNullStreams> {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER_SCRIPT, url, ledger, String(CONCURRENCY), String(LEASE_MS), String(STEPS), String(MODEL_MS)], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => chunk.includes("ready") && resolve());
    child.once("exit", (code) => reject(new Error(`fleet worker exited (${String(code)}) before it was ready: ${stderr}`)));
  });
  return child;
}

const go = (child: ChildProcessWithoutNullStreams) => child.stdin.write("go\n");
const exited = (child: ChildProcessWithoutNullStreams) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once("exit", () => resolve()));

async function queueRuns(url: string, workspace: string): Promise<void> {
  const runs = openRuns({ store: url });
  try {
    for (let k = 0; k < RUNS; k += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, RUNS - k) }, (_, i) => runs.enqueue({ task: fleetTask(k + i), strategy: "react", model: "fleet", settings: { workspace } })),
      );
    }
  } finally {
    await runs.close();
  }
}

async function drain(chaos: Chaos): Promise<BenchFigure[]> {
  const schema = await freshSchema();
  const dir = mkdtempSync(join(tmpdir(), "stepwise-bench-fleet-"));
  const ledger = join(dir, "ledger.txt");
  const db = new pg.Client({ connectionString: schema.url });
  await db.connect();
  const workers: ChildProcessWithoutNullStreams[] = [];
  let killer: NodeJS.Timeout | undefined;
  const restarts: Promise<void>[] = [];
  try {
    await queueRuns(schema.url, dir);
    workers.push(...(await Promise.all(Array.from({ length: WORKERS }, () => startWorker(schema.url, ledger)))));
    const started = performance.now();
    for (const worker of workers) go(worker);
    let kills = 0;
    if (chaos === "kill") {
      const killOne = () => {
        const index = kills++ % WORKERS;
        const victim = workers[index] as ChildProcessWithoutNullStreams;
        victim.kill("SIGKILL");
        restarts.push(
          startWorker(schema.url, ledger).then((next) => {
            workers[index] = next;
            go(next);
          }),
        );
      };
      // The first kill comes half a period in, so that a drain shorter than the period still has one.
      killer = setTimeout(() => {
        killOne();
        killer = setInterval(killOne, KILL_EVERY_MS);
      }, KILL_EVERY_MS / 2);
    }
    // Polled by the bench, not by the workers: how many runs have finished.
    let finished = 0;
    let lastFinishedAt = performance.now();
    while (finished < RUNS && performance.now() - lastFinishedAt < STALL_MS) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM stepwise_runs WHERE status = 'final'");
      if ((rows[0]?.n ?? 0) > finished) lastFinishedAt = performance.now();
      finished = rows[0]?.n ?? 0;
    }
    const makespanMs = lastFinishedAt - started;
    clearInterval(killer);
    killer = undefined;
    await Promise.all(restarts);
    await Promise.all(workers.map(async (worker) => (worker.kill("SIGTERM"), await exited(worker))));
    // A worker's backends report their row counts as they end, just after the worker does.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const after = await tableFigures(db);
    const lines = readLedger(ledger);
    // The steps the fleet made (each its model call), killed ones' made again included: what the writes bought.
    const made = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM stepwise_run_events WHERE event->>'type' = 'model-end'");
    const steps = Math.max(1, made.rows[0]?.n ?? 0);
    const tag = chaos === "kill" ? { chaos } : {};
    const figure = (metric: string, value: number): BenchFigure => ({ bench: BENCH, metric, value, ...tag });
    return [
      figure("makespan_over_ideal", Math.round((makespanMs / IDEAL_MS) * 100) / 100),
      figure("runs_per_second", Math.round((finished / (makespanMs / 1000)) * 10) / 10),
      figure("duplicate_tool_calls", duplicateCalls(lines)),
      figure("stuck_runs", RUNS - finished),
      figure("db_writes_per_step", Math.round((after.writes / steps) * 10) / 10),
      figure("db_bytes_per_step", Math.round(after.bytes / steps)),
      ...(chaos === "kill" ? [figure("workers_killed", kills)] : []),
    ];
  } finally {
    clearInterval(killer);
    await Promise.allSettled(restarts);
    for (const worker of workers) if (worker.exitCode === null && worker.signalCode === null) worker.kill("SIGKILL");
    await Promise.all(workers.map(exited));
    await db.end();
    await schema.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rows inserted or updated in the schema's tables (a fresh one: since it was made), and the tables' size. */
async function tableFigures(db: pg.Client): Promise<{ writes: number; bytes: number }> {
  await db.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await db.query<{ writes: string; bytes: string }>(
    `SELECT COALESCE(sum(n_tup_ins + n_tup_upd), 0) AS writes, COALESCE(sum(pg_total_relation_size(relid)), 0) AS bytes
     FROM pg_stat_user_tables WHERE schemaname = current_schema()`,
  );
  return { writes: Number(rows[0]?.writes ?? 0), bytes: Number(rows[0]?.bytes ?? 0) };
}

export const fleetBenchmark: Benchmark = {
  name: BENCH,
  async run(): Promise<BenchFigure[]> {
    return [...(await drain("none")), ...(await drain("kill"))];
  },
};
