// Claims on one shared PostgreSQL task board, against two bare-SQL sides measured in the same run
// (raw-sql-claims.ts): workers, each with its own connection pool as a separate process would have,
// drain 2,000 tasks. Three sides, each on tables made for the round, loaded, then VACUUM ANALYZEd
// (no side drains through dead rows an earlier round left), with every worker connected before the
// clock starts:
// - Stepwise: TaskBoard + runWorkerPool on 2,000 tasks with dependencies (leases, fencing, events);
// - bare SQL: the same tasks and the same blocker check, no leases, no fencing;
// - the floor: a pgbench-style ready queue of 2,000 tasks without dependencies, two prepared statements.
// Each side runs ROUNDS times at each worker count, the order rotating so that each side goes first
// once; a figure is the median of its rounds, with their range. `claims_over_floor` is the median of
// each round's Stepwise/floor ratio (the two measured back to back). Everything runs in schemas of
// its own (Stepwise's board one per round), dropped at the end.
import pg from "pg";
import { TaskBoard } from "../src/planning/tasks/task-board.js";
import { runWorkerPool } from "../src/planning/tasks/worker-pool.js";
import { PostgresTaskStore } from "../src/stores/postgres-task-store.js";
import { freshSchema } from "../src/stores/test-support/fresh-schema.js";
import { dependentTasks, uniqueBoardId } from "../src/stores/test-support/shared-board-workload.js";
import { medianWithRange, type Benchmark, type BenchFigure } from "./figure.js";
import { floorClaimsPerSecond, openConnections, rawSqlClaimsPerSecond } from "./raw-sql-claims.js";
import type { Chart } from "../src/eval/svg-chart.js";

const TASKS = 2000;
const WORKERS = 8;
const PLOTTED_WORKERS = [1, 2, 4, WORKERS];
const ROUNDS = 3;
const IDLE_WAIT_MS = 5;

type Side = "stepwise" | "raw" | "floor";
const SIDES: Side[] = ["stepwise", "raw", "floor"];

type Round = Record<Side, number> & { doubleClaims: number };
type Measured = { workers: number; rounds: Round[] };
let lastMeasured: Measured[] = [];

/** Stepwise draining the dependent workload with `workers` pools: claims per second and tasks handed out twice. */
async function stepwiseClaims(workers: number): Promise<{ perSecond: number; doubleClaims: number }> {
  // The round's schema keeps the board apart from every other, so its id can be as short as a user's.
  const boardId = "bench";
  const schema = await freshSchema();
  const pools = Array.from({ length: workers }, () => new pg.Pool({ connectionString: schema.url, max: 2 }));
  const boards = pools.map((pool) => new TaskBoard({ store: new PostgresTaskStore({ boardId, pool }) }));
  const seeder = boards[0] as TaskBoard;
  try {
    await seeder.import(dependentTasks(TASKS));
    await (pools[0] as pg.Pool).query("VACUUM ANALYZE stepwise_tasks");
    // Prepares each store, and opens every connection of every worker's pool (the bare sides' drain does the same).
    await Promise.all(boards.map((board) => board.counts()));
    await openConnections(pools);
    const claims = new Map<string, number>();
    const started = performance.now();
    await Promise.all(
      boards.map((board, index) =>
        runWorkerPool({
          board,
          workers: [`bench-${index + 1}`],
          idleWaitMs: IDLE_WAIT_MS,
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
    return { perSecond: Math.round(total / seconds), doubleClaims: total - claims.size };
  } finally {
    await Promise.all(boards.map((board) => board.close()));
    await Promise.all(pools.map((pool) => pool.end()));
    await schema.drop();
  }
}

/** One side once with `workers` pools of its own. */
async function runSide(side: Side, url: string, workers: number): Promise<{ perSecond: number; doubleClaims: number }> {
  if (side === "stepwise") return stepwiseClaims(workers);
  const pools = Array.from({ length: workers }, () => new pg.Pool({ connectionString: url, max: 2 }));
  const table = `bench_${side}_${uniqueBoardId("t").replace(/[^a-z0-9]/gi, "_")}`.toLowerCase();
  try {
    const perSecond =
      side === "raw"
        ? await rawSqlClaimsPerSecond({ tasks: dependentTasks(TASKS), pools, table, idleWaitMs: IDLE_WAIT_MS })
        : await floorClaimsPerSecond({ tasks: TASKS, pools, table });
    return { perSecond, doubleClaims: 0 };
  } finally {
    await Promise.all(pools.map((pool) => pool.end()));
  }
}

/** ROUNDS rounds at `workers`; round r starts with side r, so every side goes first once. */
async function measure(url: string, workers: number): Promise<Measured> {
  const rounds: Round[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const round: Round = { stepwise: 0, raw: 0, floor: 0, doubleClaims: 0 };
    for (let i = 0; i < SIDES.length; i++) {
      const side = SIDES[(r + i) % SIDES.length] as Side;
      const result = await runSide(side, url, workers);
      round[side] = result.perSecond;
      round.doubleClaims += result.doubleClaims;
    }
    rounds.push(round);
  }
  return { workers, rounds };
}

const median = (measured: Measured, side: Side) => medianWithRange(measured.rounds.map((round) => round[side]));

export const boardClaimsBenchmark: Benchmark = {
  name: "board-claims",
  async run(): Promise<BenchFigure[]> {
    const schema = await freshSchema();
    lastMeasured = [];
    try {
      for (const workers of PLOTTED_WORKERS) lastMeasured.push(await measure(schema.url, workers));
    } finally {
      await schema.drop();
    }
    const eight = lastMeasured.find((m) => m.workers === WORKERS) as Measured;
    const ratio = medianWithRange(eight.rounds.map((round) => Math.round((round.stepwise / round.floor) * 100) / 100));
    const figure = (metric: string, measured: { value: number; range: [number, number] }): BenchFigure => ({ bench: "board-claims", metric, ...measured });
    return [
      figure("claims_per_second", median(eight, "stepwise")),
      { bench: "board-claims", metric: "double_claims", value: lastMeasured.reduce((sum, m) => sum + m.rounds.reduce((s, r) => s + r.doubleClaims, 0), 0) },
      figure("raw_sql_claims_per_second", median(eight, "raw")),
      figure("floor_claims_per_second", median(eight, "floor")),
      figure("claims_over_floor", ratio),
    ];
  },
  plots: (): Chart[] => [
    {
      name: "board-claims",
      title: `Shared PostgreSQL board: claims per second against workers (${TASKS} tasks; median of ${ROUNDS} rounds, whiskers: range)`,
      xLabel: "workers",
      yLabel: "claims per second",
      kind: "line",
      series: (
        [
          ["stepwise", "Stepwise (TaskBoard + runWorkerPool, dependent tasks)"],
          ["raw", "bare SQL, same tasks and blocker check"],
          ["floor", "floor: ready queue, no dependencies (SKIP LOCKED)"],
        ] as const
      ).map(([side, name]) => ({
        name,
        points: lastMeasured.map((m): [number, number] => [m.workers, median(m, side).value]),
        ranges: lastMeasured.map((m) => median(m, side).range),
      })),
    },
  ],
};
