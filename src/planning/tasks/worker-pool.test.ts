import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { TaskBoard } from "./task-board.js";
import { runWorkerPool } from "./worker-pool.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe("runWorkerPool", () => {
  it("drains a board with several workers: each task once, never before its blockers, spread over workers", async () => {
    const board = new TaskBoard();
    await board.import(
      Array.from({ length: 40 }, (_, i) => ({ id: String(i + 1), subject: `t${i + 1}`, blockedBy: i >= 4 ? [String(i - 3)] : [] })),
    );
    const started: string[] = [];
    const finished = new Set<string>();
    const report = await runWorkerPool({
      board,
      workers: 4,
      idleWaitMs: 1,
      work: async (task, { worker }) => {
        for (const blocker of task.blockedBy) expect(finished.has(blocker)).toBe(true);
        started.push(task.id);
        await tick();
        finished.add(task.id);
        return { by: worker };
      },
    });
    expect(report.completed).toBe(40);
    expect(new Set(started).size).toBe(40);
    expect(Object.values(report.byWorker).filter((ids) => ids.length > 0).length).toBeGreaterThan(1);
    const tasks = await board.list();
    expect(tasks.every((task) => task.state === "completed" && task.metadata["by"] === task.owner)).toBe(true);
  });

  it("puts a failed task back to pending and rejects with the error", async () => {
    const board = new TaskBoard();
    await board.import([{ id: "1", subject: "ok" }, { id: "2", subject: "breaks" }]);
    const run = runWorkerPool({
      board,
      workers: ["solo"],
      work: async (task) => {
        if (task.id === "2") throw new Error("disk full");
      },
    });
    await expect(run).rejects.toThrow("disk full");
    expect((await board.list()).map((task) => [task.id, task.state, task.owner])).toEqual([
      ["1", "completed", "solo"],
      ["2", "pending", null],
    ]);
  });

  it("runs agents as workers: each claimed task becomes one agent run", async () => {
    const board = new TaskBoard();
    await board.import([{ id: "1", subject: "Summarize A" }, { id: "2", subject: "Summarize B", blockedBy: ["1"] }]);
    const agents = new Map(
      ["a", "b"].map((name) => [name, new Agent({ name, model: scriptedModel([(req) => `done: ${String(req.messages.at(-1)?.content)}`, (req) => `done: ${String(req.messages.at(-1)?.content)}`]) })]),
    );
    await runWorkerPool({
      board,
      workers: ["a", "b"],
      idleWaitMs: 1,
      work: async (task, { worker }) => ({ answer: (await (agents.get(worker) as Agent).run(task.subject)).text }),
    });
    expect((await board.list()).map((task) => task.metadata["answer"])).toEqual(["done: Summarize A", "done: Summarize B"]);
  });

  it("stops early when its signal aborts", async () => {
    const board = new TaskBoard();
    await board.import(Array.from({ length: 10 }, (_, i) => ({ id: String(i + 1), subject: "t" })));
    const controller = new AbortController();
    const report = await runWorkerPool({
      board,
      workers: 1,
      signal: controller.signal,
      work: async (task) => {
        if (task.id === "3") controller.abort();
      },
    });
    expect(report.completed).toBe(3);
    expect((await board.counts()).pending).toBe(7);
  });

  it("runs no task when its signal was aborted before it started", async () => {
    const board = new TaskBoard();
    await board.import(Array.from({ length: 3 }, (_, i) => ({ id: String(i + 1), subject: "t" })));
    const worked: string[] = [];
    const report = await runWorkerPool({
      board,
      workers: 2,
      signal: AbortSignal.abort(),
      work: async (task) => void worked.push(task.id),
    });
    expect(worked).toEqual([]);
    expect(report.completed).toBe(0);
    expect((await board.counts()).pending).toBe(3);
  });
});
