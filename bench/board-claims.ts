// Claims on one shared PostgreSQL task board: workers, each with its own connection pool as a
// separate process would have, drain 2,000 tasks with dependencies. Reports claim throughput with 8
// workers, how many tasks were handed out more than once (the contract says 0), and, measured in the
// same run with the same pools, what bare SQL does with the same tasks (raw-sql-claims.ts). The plot
// shows both at 1, 2, 4 and 8 workers.
import pg from "pg";
import { TaskBoard } from "../src/planning/tasks/task-board.js";
import { runWorkerPool } from "../src/planning/tasks/worker-pool.js";
import { PostgresTaskStore } from "../src/stores/postgres-task-store.js";
import { dependentTasks, TEST_DATABASE_URL, uniqueBoardId } from "../src/stores/test-support/shared-board-workload.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import { rawSqlClaimsPerSecond } from "./raw-sql-claims.js";
import type { Chart } from "../src/eval/svg-chart.js";

const TASKS = 2000;
const WORKERS = 8;
const PLOTTED_WORKERS = [1, 2, 4, WORKERS];

type Measured = { workers: number; claimsPerSecond: number; doubleClaims: number; rawPerSecond: number };
let lastMeasured: Measured[] = [];

/** Stepwise's claims and bare SQL's, side by side, with `workers` pools. */
async function measure(workers: number): Promise<Measured> {
  const boardId = uniqueBoardId("bench");
  const pools = Array.from({ length: workers }, () => new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 }));
  const boards = pools.map((pool) => new TaskBoard({ store: new PostgresTaskStore({ boardId, pool }) }));
  const seeder = boards[0] as TaskBoard;
  try {
    const rawPerSecond = await rawSqlClaimsPerSecond({ tasks: dependentTasks(TASKS), pools, table: `stepwise_bench_raw_${boardId.replace(/[^a-z0-9]/gi, "_")}`.toLowerCase(), idleWaitMs: 5 });
    await seeder.import(dependentTasks(TASKS));
    const claims = new Map<string, number>();
    const started = performance.now();
    await Promise.all(
      boards.map((board, index) =>
        runWorkerPool({
          board,
          workers: [`bench-${index + 1}`],
          idleWaitMs: 5,
          work: async (task) => {
            claims.set(task.id, (claims.get(task.id) ?? 0) + 1);
          },
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const total = [...claims.values()].reduce((sum, n) => sum + n, 0);
    const left = (await seeder.counts()).pending;
    if (claims.size !== TASKS || left !== 0) throw new Error(`board-claims: ${claims.size} of ${TASKS} tasks claimed, ${left} left pending`);
    return { workers, claimsPerSecond: Math.round(total / seconds), doubleClaims: total - claims.size, rawPerSecond };
  } finally {
    await (seeder.store as PostgresTaskStore).deleteBoard().catch(() => undefined);
    await Promise.all(pools.map((pool) => pool.end()));
  }
}

export const boardClaimsBenchmark: Benchmark = {
  name: "board-claims",
  async run(): Promise<BenchFigure[]> {
    lastMeasured = [];
    for (const workers of PLOTTED_WORKERS) lastMeasured.push(await measure(workers));
    const eight = lastMeasured.find((m) => m.workers === WORKERS) as Measured;
    return [
      { bench: "board-claims", metric: "claims_per_second", value: eight.claimsPerSecond },
      { bench: "board-claims", metric: "double_claims", value: lastMeasured.reduce((sum, m) => sum + m.doubleClaims, 0) },
      { bench: "board-claims", metric: "raw_sql_claims_per_second", value: eight.rawPerSecond },
    ];
  },
  plots: (): Chart[] => [
    {
      name: "board-claims",
      title: `Shared PostgreSQL board: claims per second against workers (${TASKS} tasks with dependencies)`,
      xLabel: "workers",
      yLabel: "claims per second",
      kind: "line",
      series: [
        { name: "Stepwise (TaskBoard + runWorkerPool)", points: lastMeasured.map((m): [number, number] => [m.workers, m.claimsPerSecond]) },
        { name: "bare SQL (SKIP LOCKED, two prepared statements)", points: lastMeasured.map((m): [number, number] => [m.workers, m.rawPerSecond]) },
      ],
    },
  ],
};
