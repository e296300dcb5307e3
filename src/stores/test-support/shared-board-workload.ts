// The shared-board workload used by the PostgreSQL integration test and the board-claims benchmark:
// a board of tasks with dependencies, drained by several workers at once.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Task, TaskImport } from "../../planning/tasks/task.js";
import type { WorkerPoolReport } from "../../planning/tasks/worker-pool.js";

export const TEST_DATABASE_URL = process.env["STEPWISE_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

/** A unique board id per run, so concurrent runs and earlier leftovers never meet. */
export function uniqueBoardId(prefix: string): string {
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * `count` tasks where task i waits on up to two of the 40 tasks before it, drawn by a seeded
 * generator so every run has the same graph: deep enough to force waiting, wide enough for 8 workers.
 */
export function dependentTasks(count: number, seed = 42): TaskImport[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  return Array.from({ length: count }, (_, index) => {
    const id = index + 1;
    const blockers = new Set<string>();
    for (let pick = 0; pick < 2 && id > 1; pick++) {
      if (random() < 0.6) blockers.add(String(Math.max(1, id - 1 - Math.floor(random() * 40))));
    }
    return { id: String(id), subject: `Task ${id}`, description: `Step ${id} of the workload`, blockedBy: [...blockers] };
  });
}

const WORKER_SCRIPT = fileURLToPath(new URL("./board-worker.ts", import.meta.url));
// Node itself runs the worker with tsx as a loader (tsx's own command would put a second process in
// between, which a kill of the first would leave running).
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm")).href;

/** What one board-worker process is told (as JSON on its command line). */
export type WorkerProcessOptions = {
  /** A PostgreSQL connection string, or `sqlite:<path>`. */
  store: string;
  boardId: string;
  worker: string;
  /** A database sequence the worker numbers its work with (PostgreSQL). */
  sequence?: string;
  journalId?: string;
  leaseMs?: number;
  heartbeatMs?: number;
  /** Hang in the n-th task (holding its claim) until killed. */
  hangAt?: number;
};

export type WorkerProcess = {
  readonly worker: string;
  /** Every line printed so far. */
  readonly lines: string[];
  /** Resolves with the `nth` line (1 by default) matching `pattern`, printed already or later. */
  waitForLine(pattern: RegExp, nth?: number): Promise<string>;
  /** SIGKILL: the process gets no chance to release anything. */
  kill(): void;
  /** Settles when the process exits: its report, or null when it was killed. */
  readonly exited: Promise<WorkerPoolReport | null>;
};

/** Starts one worker process; it is killed after `timeoutMs` so a failing run never leaves processes behind. */
export function startWorkerProcess(opts: WorkerProcessOptions, timeoutMs = 90_000): WorkerProcess {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, WORKER_SCRIPT, JSON.stringify(opts)], { stdio: ["ignore", "pipe", "pipe"], timeout: timeoutMs, killSignal: "SIGKILL" });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; left: number; resolve: (line: string) => void }[] = [];
  let partial = "";
  let err = "";
  let killed = false;
  child.stdout.on("data", (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) {
      lines.push(line);
      for (const waiter of waiters.filter((w) => w.pattern.test(line) && --w.left === 0)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<WorkerPoolReport | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      for (const waiter of waiters) waiter.resolve(`(exited before printing ${String(waiter.pattern)})`);
      if (killed && signal === "SIGKILL") return resolve(null);
      const report = lines.find((line) => line.startsWith("report "));
      if (code === 0 && report) resolve(JSON.parse(report.slice("report ".length)) as WorkerPoolReport);
      else reject(new Error(`worker ${opts.worker} exited with ${String(code ?? signal)}: ${err}`));
    });
  });
  return {
    worker: opts.worker,
    lines,
    exited,
    waitForLine: (pattern, nth = 1) => {
      const seen = lines.filter((line) => pattern.test(line));
      const found = seen[nth - 1];
      return found !== undefined ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ pattern, left: nth - seen.length, resolve }));
    },
    kill: () => {
      killed = true;
      child.kill("SIGKILL");
    },
  };
}

/** Runs one worker process per name on a PostgreSQL board (`store`, a connection string) and returns each process's report. */
export async function runWorkerProcesses(opts: { store: string; boardId: string; workers: string[]; sequence: string; journalId?: string }): Promise<WorkerPoolReport[]> {
  const processes = opts.workers.map((worker) =>
    startWorkerProcess({ store: opts.store, boardId: opts.boardId, worker, sequence: opts.sequence, ...(opts.journalId ? { journalId: opts.journalId } : {}) }, 55_000),
  );
  return (await Promise.all(processes.map((p) => p.exited))) as WorkerPoolReport[];
}

/** What became of a board drained by worker processes some of which were killed holding a task. */
export type KilledWorkersOutcome = {
  /** The task each killed worker held when it was killed. */
  killed: { worker: string; taskId: string }[];
  survivors: WorkerPoolReport[];
  /** How often each task's completion committed, counted from every process's `done` lines, the killed ones' included. */
  completions: Map<string, number>;
  /** Expired leases the survivors returned to pending: task id and the owner whose lease it was. */
  expired: { taskId: string; owner: string }[];
};

/**
 * Drains a board with `workers` processes, of which `killed` are killed with SIGKILL right after a
 * claim: each hangs in its n-th task (n = 1, 2, …), and is killed as soon as it has printed that
 * claim. The others, started then, must finish the board, the killed workers' tasks included.
 */
export async function drainWithKilledWorkers(opts: {
  store: string;
  boardId: string;
  workers: number;
  killed: number;
  leaseMs: number;
  heartbeatMs: number;
}): Promise<KilledWorkersOutcome> {
  const start = (worker: string, hangAt?: number) =>
    startWorkerProcess({ store: opts.store, boardId: opts.boardId, worker, leaseMs: opts.leaseMs, heartbeatMs: opts.heartbeatMs, ...(hangAt ? { hangAt } : {}) });
  // The victims go first and alone, so each surely reaches its n-th claim (on a busy machine the others
  // could otherwise drain the board before it does); the survivors start once every victim is dead.
  const victims = Array.from({ length: opts.killed }, (_, i) => ({ hangAt: i + 1, process: start(`victim-${i + 1}`, i + 1) }));
  const killed = await Promise.all(
    victims.map(async ({ process, hangAt }) => {
      // The n-th claim line: the worker now hangs holding that task.
      const line = await process.waitForLine(/^claimed \d+$/, hangAt);
      process.kill();
      await process.exited;
      return { worker: process.worker, taskId: line.slice("claimed ".length) };
    }),
  );
  const others = Array.from({ length: opts.workers - opts.killed }, (_, i) => start(`survivor-${i + 1}`));
  const survivors = (await Promise.all(others.map((p) => p.exited))) as WorkerPoolReport[];
  const processes = [...victims.map((v) => v.process), ...others];
  const completions = new Map<string, number>();
  const expired: { taskId: string; owner: string }[] = [];
  for (const process of processes) {
    for (const line of process.lines) {
      const [kind, taskId, owner] = line.split(" ");
      if (kind === "done" && taskId) completions.set(taskId, (completions.get(taskId) ?? 0) + 1);
      if (kind === "expired" && taskId && owner) expired.push({ taskId, owner });
    }
  }
  return { killed, survivors, completions, expired };
}

/**
 * What the tests assert after drainWithKilledWorkers: tasks not completed (stranded), completed more
 * than once or never by a committed write, and killed workers' tasks that no survivor took back.
 */
export function killedWorkersCheck(outcome: KilledWorkersOutcome, final: readonly Task[]) {
  return {
    tasks: final.length,
    stranded: final.filter((task) => task.state !== "completed").map((task) => task.id),
    completedTwice: [...outcome.completions].filter(([, n]) => n > 1).map(([id]) => id),
    neverCompleted: final.filter((task) => !outcome.completions.has(task.id)).map((task) => task.id),
    notTakenBack: outcome.killed.filter((k) => !outcome.expired.some((e) => e.taskId === k.taskId && e.owner === k.worker)),
  };
}
