// What a task board costs as it grows, on PostgreSQL: the tokens of TaskList's default answer and
// the median time of one claim, on boards of 100, 2,000 and 20,000 dependent tasks. Both should
// stay flat: the list is bounded, and a claim reaches its rows by key.
import pg from "pg";
import { TaskBoard } from "../src/planning/tasks/task-board.js";
import type { Tool } from "../src/core/tool.js";
import { PostgresTaskStore } from "../src/stores/postgres-task-store.js";
import { dependentTasks, TEST_DATABASE_URL, uniqueBoardId } from "../src/stores/test-support/shared-board-workload.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import { countTokens } from "./tokens.js";

const SIZES = [100, 2_000, 20_000];
const CLAIMS = 60;

export const boardScaleBenchmark: Benchmark = {
  name: "board-scale",
  async run(): Promise<BenchFigure[]> {
    const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 2 });
    const figures: BenchFigure[] = [];
    try {
      for (const tasks of SIZES) {
        const store = new PostgresTaskStore({ boardId: uniqueBoardId("scale"), pool });
        const board = new TaskBoard({ store });
        try {
          await board.import(dependentTasks(tasks));
          const list = board.tools().find((tool) => tool.name === "TaskList") as Tool;
          figures.push({ bench: "board-scale", metric: "tasklist_tokens", tasks, value: countTokens((await list.invoke({})).text) });
          const times: number[] = [];
          for (let i = 0; i < CLAIMS; i++) {
            const started = performance.now();
            const task = await board.claimNext("bench");
            times.push(performance.now() - started);
            if (!task) throw new Error(`board-scale: nothing to claim on a board of ${tasks}`);
            await board.update(task.id, { state: "completed" }, { lease: task.lease });
          }
          times.sort((a, b) => a - b);
          figures.push({ bench: "board-scale", metric: "claim_ms_p50", tasks, value: Number((times[Math.floor(times.length / 2)] as number).toFixed(2)) });
        } finally {
          await store.deleteBoard();
        }
      }
    } finally {
      await pool.end();
    }
    return figures;
  },
};
