// The shared-board workload used by the PostgreSQL integration test and the board-claims benchmark:
// a board of tasks with dependencies, drained by several workers at once.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { TaskImport } from "../../planning/tasks/task.js";
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
const TSX = fileURLToPath(new URL("../../../node_modules/.bin/tsx", import.meta.url));

/** Runs one worker process per name on the board and returns each process's report. */
export async function runWorkerProcesses(opts: {
  boardId: string;
  workers: string[];
  /** A database sequence the workers number their work with. */
  sequence: string;
  journalId?: string;
}): Promise<WorkerPoolReport[]> {
  return Promise.all(
    opts.workers.map(
      (worker) =>
        new Promise<WorkerPoolReport>((resolve, reject) => {
          const args = [WORKER_SCRIPT, TEST_DATABASE_URL, opts.boardId, worker, opts.sequence, ...(opts.journalId ? [opts.journalId] : [])];
          // The timeout ends a stuck worker so a failing run never leaves processes behind.
          const child = spawn(TSX, args, { stdio: ["ignore", "pipe", "pipe"], timeout: 55_000 });
          let out = "";
          let err = "";
          child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
          child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
          child.on("error", reject);
          child.on("close", (code) => {
            if (code === 0) resolve(JSON.parse(out.trim()) as WorkerPoolReport);
            else reject(new Error(`worker ${worker} exited with ${String(code)}: ${err}`));
          });
        }),
    ),
  );
}
