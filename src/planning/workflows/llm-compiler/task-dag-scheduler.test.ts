import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TaskDagScheduler, type DagTask } from "./task-dag-scheduler.js";

/** A runner whose tasks finish only when the test says so, to control order without timers. */
function controlledRunner() {
  const log: string[] = [];
  const pending = new Map<number, () => void>();
  const run = (task: DagTask, inputs: ReadonlyMap<number, string>) => {
    log.push(`start ${task.id}(${[...inputs.values()].join(",")})`);
    return new Promise<string>((resolve) => pending.set(task.id, () => resolve(`r${task.id}`)));
  };
  const finish = async (id: number) => {
    pending.get(id)?.();
    pending.delete(id);
    await settled();
  };
  return { log, run, finish };
}

/** Lets the scheduler start what is ready: it does so in the microtask after a task becomes ready. */
const settled = () => new Promise((r) => setImmediate(r));

describe("TaskDagScheduler", () => {
  it("starts a task the moment its last dependency finishes, passing the results", async () => {
    const { log, run, finish } = controlledRunner();
    const scheduler = new TaskDagScheduler(run);
    scheduler.add({ id: 1, dependsOn: [] });
    scheduler.add({ id: 2, dependsOn: [] });
    scheduler.add({ id: 3, dependsOn: [1, 2, 1] });
    await settled();
    expect(log).toEqual(["start 1()", "start 2()"]);
    await finish(1);
    expect(log).toHaveLength(2);
    await finish(2);
    expect(log).toEqual(["start 1()", "start 2()", "start 3(r1,r2)"]);
    const idle = scheduler.idle();
    await finish(3);
    await idle;
    expect(scheduler.results.get(3)).toBe("r3");
  });

  it("accepts tasks that depend on results completed elsewhere, and refuses unknown dependencies", async () => {
    const { log, run } = controlledRunner();
    const scheduler = new TaskDagScheduler(run);
    scheduler.complete(1, "earlier");
    scheduler.add({ id: 2, dependsOn: [1] });
    await settled();
    expect(log).toEqual(["start 2(earlier)"]);
    expect(() => scheduler.add({ id: 3, dependsOn: [9] })).toThrow("unknown task(s) 9");
    expect(() => scheduler.add({ id: 2, dependsOn: [] })).toThrow("added twice");
  });

  it("honours maxParallel", async () => {
    const { log, run, finish } = controlledRunner();
    const scheduler = new TaskDagScheduler(run, { maxParallel: 1 });
    for (const id of [1, 2, 3]) scheduler.add({ id, dependsOn: [] });
    await settled();
    expect(log).toEqual(["start 1()"]);
    await finish(1);
    expect(log).toEqual(["start 1()", "start 2()"]);
  });

  it("with too few workers for what is ready, starts the task with the longest chain waiting on it first", async () => {
    const { log, run, finish } = controlledRunner();
    const scheduler = new TaskDagScheduler(run, { maxParallel: 1 });
    // Tasks 1 and 2 are side work; 3 heads the chain 3 → 4 → 5, which decides when the DAG is done.
    scheduler.add({ id: 1, dependsOn: [] });
    scheduler.add({ id: 2, dependsOn: [] });
    scheduler.add({ id: 3, dependsOn: [] });
    scheduler.add({ id: 4, dependsOn: [3] });
    scheduler.add({ id: 5, dependsOn: [4] });
    await settled();
    expect(log).toEqual(["start 3()"]);
    await finish(3);
    // 4 now heads the longest chain, ahead of the side work that was ready before it.
    expect(log).toEqual(["start 3()", "start 4(r3)"]);
    await finish(4);
    // Chains of one task each: the earliest ready goes first.
    expect(log.slice(2)).toEqual(["start 1()"]);
  });

  it("runs every task of any DAG exactly once, after all of its dependencies", async () => {
    const dag = fc.array(fc.array(fc.nat(), { maxLength: 4 }), { minLength: 1, maxLength: 40 }).map((deps) =>
      deps.map((ds, i) => ({ id: i + 1, dependsOn: i === 0 ? [] : ds.map((d) => (d % i) + 1) })),
    );
    await fc.assert(
      fc.asyncProperty(dag, fc.integer({ min: 1, max: 4 }), async (tasks, maxParallel) => {
        const finished: number[] = [];
        const scheduler = new TaskDagScheduler<DagTask, number>(
          async (task) => {
            for (const dep of task.dependsOn) expect(finished).toContain(dep);
            await Promise.resolve();
            finished.push(task.id);
            return task.id;
          },
          { maxParallel },
        );
        for (const task of tasks) scheduler.add(task);
        await scheduler.idle();
        expect([...finished].sort((a, b) => a - b)).toEqual(tasks.map((t) => t.id));
      }),
    );
  });
});
