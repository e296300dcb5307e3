// A worker process for the shared-board integration test:
// `tsx board-worker.ts <connection string> <board id> <worker name> <sequence> [journal task id]`.
// It drains the board with one worker. Each task's metadata records, from a database sequence, a
// number taken when its work starts (after the claim) and one when it ends (before it is marked
// completed), so the test can check that no task started before its blockers were done.
import pg from "pg";
import { runWorkerPool } from "../../planning/tasks/worker-pool.js";
import { TaskBoard } from "../../planning/tasks/task-board.js";
import { PostgresTaskStore } from "../postgres-task-store.js";

const [connectionString, boardId, worker, sequence, journalId] = process.argv.slice(2);
if (!connectionString || !boardId || !worker || !sequence) {
  process.stderr.write("usage: board-worker <connection string> <board id> <worker name> <sequence> [journal task id]\n");
  process.exit(2);
}

const pool = new pg.Pool({ connectionString, max: 2 });
const board = new TaskBoard({ store: new PostgresTaskStore({ boardId, pool }) });
const tick = async () => {
  const { rows } = await pool.query<{ n: string }>("SELECT nextval($1) AS n", [sequence]);
  return Number(rows[0]?.n);
};

const report = await runWorkerPool({
  board,
  workers: [worker],
  idleWaitMs: 10,
  work: async (task) => {
    const startedAt = await tick();
    // Many processes merging into one task's metadata at once: none of these writes may be lost.
    if (journalId && Number(task.id) % 8 === 0) await board.update(journalId, { metadata: { [`task-${task.id}`]: worker } });
    return { completedBy: worker, startedAt, doneAt: await tick() };
  },
});
await pool.end();
process.stdout.write(`${JSON.stringify(report)}\n`);
