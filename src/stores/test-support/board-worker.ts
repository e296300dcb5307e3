// A worker process for the shared-board tests: `tsx board-worker.ts '<WorkerProcessOptions as JSON>'`.
// It drains the board with one worker and prints one line per event the tests wait for:
//   `claimed <id>` when it starts work on a task, `done <id>` when that task's completion committed,
//   `expired <id> <old owner>` when its claim returned a dead worker's task to pending,
//   and last `report <WorkerPoolReport as JSON>`.
// With a sequence (PostgreSQL only), each task's metadata records a number taken when its work starts
// and one when it ends, so a test can check that no task started before its blockers were done.
// With `hangAt: n`, the worker hangs in its n-th task, holding the claim, until it is killed.
import pg from "pg";
import type { PluginHost } from "../../core/plugin.js";
import { TaskBoard } from "../../planning/tasks/task-board.js";
import type { TaskStore } from "../../planning/tasks/task-store.js";
import { runWorkerPool } from "../../planning/tasks/worker-pool.js";
import { PostgresTaskStore } from "../postgres-task-store.js";
import { SqliteTaskStore } from "../sqlite-task-store.js";
import type { WorkerProcessOptions } from "./shared-board-workload.js";

const opts = JSON.parse(process.argv[2] ?? "null") as WorkerProcessOptions | null;
if (!opts?.store || !opts.boardId || !opts.worker) {
  process.stderr.write("usage: board-worker '{\"store\": \"postgres://…\" | \"sqlite:<path>\", \"boardId\": …, \"worker\": …}'\n");
  process.exit(2);
}

const line = (text: string) => process.stdout.write(`${text}\n`);
const pool = opts.store.startsWith("sqlite:") ? undefined : new pg.Pool({ connectionString: opts.store, max: 2 });
const store: TaskStore = pool
  ? new PostgresTaskStore({ boardId: opts.boardId, pool })
  : new SqliteTaskStore({ path: opts.store.slice("sqlite:".length), boardId: opts.boardId });
const board = new TaskBoard({ store });
// The board announces to the agents it is attached to; this process listens the same way.
const host: PluginHost = {
  agentName: opts.worker,
  on: () => () => undefined,
  emit: (event) => {
    // A completed task's unit ends with its subject as the outcome (one set back to pending says so instead).
    if (event.type === "unit-end" && event.outcome.startsWith(event.unit.title)) line(`done ${event.unit.id}`);
    if (event.type === "lease-expired") line(`expired ${event.lease.taskId} ${event.lease.owner}`);
  },
};
board.attach(host);

const tick = async () => {
  if (!pool || !opts.sequence) return undefined;
  const { rows } = await pool.query<{ n: string }>("SELECT nextval($1) AS n", [opts.sequence]);
  return Number(rows[0]?.n);
};

let started = 0;
const report = await runWorkerPool({
  board,
  workers: [opts.worker],
  idleWaitMs: 10,
  ...(opts.leaseMs ? { leaseMs: opts.leaseMs } : {}),
  ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}),
  work: async (task) => {
    line(`claimed ${task.id}`);
    if (++started === opts.hangAt) await new Promise(() => undefined);
    const startedAt = await tick();
    // Many processes merging into one task's metadata at once: none of these writes may be lost.
    if (opts.journalId && Number(task.id) % 8 === 0) await board.update(opts.journalId, { metadata: { [`task-${task.id}`]: opts.worker } });
    return { completedBy: opts.worker, ...(startedAt === undefined ? {} : { startedAt, doneAt: await tick() }) };
  },
});
await board.close();
await pool?.end();
line(`report ${JSON.stringify(report)}`);
