// What a task board costs as it grows: on boards of 100, 2,000 and 20,000 dependent tasks, the
// tokens of TaskList's default answer, its median time, and the median time of one claim (each
// claimed task is then completed). Every figure should stay flat: the list is bounded and computed
// in the database, and a claim reaches its row by index. The claim is measured twice: on the
// dependent workload, whose start is free, and with the start of the board blocked
// (`"head":"blocked"`): every task but the last CLAIMS + 1 waits on the last one, which is never
// claimed, so each claim must get past all of them to the free tasks at the end.
// `board-scale` measures the PostgreSQL store; `board-scale-embedded` the same on the SQLite store
// (a file of its own per board) and the memory store, each line with its `system`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { MemoryTaskStore } from "../src/planning/tasks/memory-task-store.js";
import { TaskBoard } from "../src/planning/tasks/task-board.js";
import type { TaskImport } from "../src/planning/tasks/task.js";
import type { Tool } from "../src/core/tool.js";
import { PostgresTaskStore } from "../src/stores/postgres-task-store.js";
import { SqliteTaskStore } from "../src/stores/sqlite-task-store.js";
import { freshSchema } from "../src/stores/test-support/fresh-schema.js";
import { dependentTasks, uniqueBoardId } from "../src/stores/test-support/shared-board-workload.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import { countTokens } from "./tokens.js";

const SIZES = [100, 2_000, 20_000];
const CLAIMS = 60;
const LISTS = 30;

/** `count` tasks; all but the last CLAIMS + 1 wait on the last one. */
function blockedHeadTasks(count: number): TaskImport[] {
  const last = String(count);
  return Array.from({ length: count }, (_, i) => ({
    id: String(i + 1),
    subject: `Task ${i + 1}`,
    description: `Step ${i + 1} of the workload`,
    blockedBy: i + 1 < count - CLAIMS ? [last] : [],
  }));
}

function p50(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  return Number((sorted[Math.floor(sorted.length / 2)] as number).toFixed(3));
}

/** The median time of CLAIMS claims, each completed before the next. */
async function claimP50(board: TaskBoard, tasks: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    const started = performance.now();
    const task = await board.claimNext("bench");
    times.push(performance.now() - started);
    if (!task) throw new Error(`board-scale: nothing to claim on a board of ${tasks}`);
    await board.update(task.id, { state: "completed" }, { lease: task.lease });
  }
  return p50(times);
}

/** Opens a board of `tasks`, runs `measure` on it, and removes it again. */
type OnBoard = <T>(tasks: readonly TaskImport[], measure: (board: TaskBoard) => Promise<T>) => Promise<T>;

/** Every size's figures on boards `onBoard` opens, each line with `extra` (the system, for the embedded stores). */
async function measureSizes(bench: string, onBoard: OnBoard, extra: Partial<BenchFigure> = {}): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  // One untimed pass first, so that the first size measured does not pay for the JIT, the pool's
  // connections and the statements' first plans.
  await onBoard(dependentTasks(SIZES[0] as number), async (board) => {
    const list = board.tools().find((tool) => tool.name === "TaskList") as Tool;
    for (let i = 0; i < 10; i++) await list.invoke({});
    await claimP50(board, SIZES[0] as number);
  });
  for (const tasks of SIZES) {
    const figure = (metric: string, value: number, more: Partial<BenchFigure> = {}): BenchFigure => ({ bench, metric, ...extra, tasks, ...more, value });
    await onBoard(dependentTasks(tasks), async (board) => {
      const list = board.tools().find((tool) => tool.name === "TaskList") as Tool;
      figures.push(figure("tasklist_tokens", countTokens((await list.invoke({})).text)));
      const times: number[] = [];
      for (let i = 0; i < LISTS; i++) {
        const started = performance.now();
        await list.invoke({});
        times.push(performance.now() - started);
      }
      figures.push(figure("tasklist_ms_p50", p50(times)));
      figures.push(figure("claim_ms_p50", await claimP50(board, tasks)));
    });
    figures.push(figure("claim_ms_p50", await onBoard(blockedHeadTasks(tasks), (board) => claimP50(board, tasks)), { head: "blocked" }));
  }
  return figures;
}

/** Boards in the PostgreSQL schema `pool` reaches, ANALYZEd after the load. */
function postgresBoards(pool: pg.Pool): OnBoard {
  return async (tasks, measure) => {
    const store = new PostgresTaskStore({ boardId: uniqueBoardId("scale"), pool });
    const board = new TaskBoard({ store });
    try {
      await board.import(tasks);
      await pool.query("ANALYZE stepwise_tasks");
      return await measure(board);
    } finally {
      await store.deleteBoard();
      await board.close();
    }
  };
}

/** Boards in a SQLite file of their own each, under `dir`. */
function sqliteBoards(dir: string): OnBoard {
  let files = 0;
  return async (tasks, measure) => {
    const board = new TaskBoard({ store: new SqliteTaskStore({ path: join(dir, `board-${++files}.db`) }) });
    try {
      await board.import(tasks);
      return await measure(board);
    } finally {
      await board.close();
    }
  };
}

const memoryBoards: OnBoard = async (tasks, measure) => {
  const board = new TaskBoard({ store: new MemoryTaskStore() });
  await board.import(tasks);
  return measure(board);
};

export const boardScaleBenchmark: Benchmark = {
  name: "board-scale",
  async run(): Promise<BenchFigure[]> {
    const schema = await freshSchema();
    const pool = new pg.Pool({ connectionString: schema.url, max: 2 });
    try {
      return await measureSizes("board-scale", postgresBoards(pool));
    } finally {
      await pool.end();
      await schema.drop();
    }
  },
};

export const boardScaleEmbeddedBenchmark: Benchmark = {
  name: "board-scale-embedded",
  async run(): Promise<BenchFigure[]> {
    const dir = mkdtempSync(join(tmpdir(), "stepwise-board-scale-"));
    try {
      return [
        ...(await measureSizes("board-scale-embedded", sqliteBoards(dir), { system: "sqlite" })),
        ...(await measureSizes("board-scale-embedded", memoryBoards, { system: "memory" })),
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
