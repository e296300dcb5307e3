import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { MemoryTaskStore } from "./memory-task-store.js";
import { TaskBoard } from "./task-board.js";
import type { Task, TaskDraft } from "./task.js";

/**
 * A store whose writes land in the reverse of the order they were asked for, as concurrent
 * transactions on a shared database may: each create waits until every later one has landed.
 */
class ReversingStore extends MemoryTaskStore {
  readonly #waiting: (() => void)[] = [];
  constructor(readonly batch: number) {
    super();
  }
  override async create(draft: TaskDraft, opts?: { id?: string }): Promise<Task> {
    await new Promise<void>((resolve) => {
      this.#waiting.push(resolve);
      if (this.#waiting.length === this.batch) this.#waiting.pop()?.();
    });
    const task = await super.create(draft, opts);
    this.#waiting.pop()?.();
    return task;
  }
}

const create = (subject: string) => ({ name: "TaskCreate", arguments: { subject, description: `${subject}.` } });

describe("TaskCreate calls of one model turn", () => {
  it("get ids in call order even when their writes land in reverse, so the same turn's edges name the right tasks", async () => {
    const board = new TaskBoard({ store: new ReversingStore(3) });
    const model = scriptedModel([
      { toolCalls: [create("Survey"), create("Read"), create("Write")] },
      { toolCalls: [{ name: "TaskUpdate", arguments: { task_id: "2", add_blocked_by: ["1"] } }, { name: "TaskUpdate", arguments: { task_id: "3", add_blocked_by: ["2"] } }] },
      "planned",
    ]);
    const agent = new Agent({ name: "planner", model, plugins: [board] });
    await agent.run("plan");
    expect((await board.list()).map((task) => [task.id, task.subject, task.blockedBy])).toEqual([
      ["1", "Survey", []],
      ["2", "Read", ["1"]],
      ["3", "Write", ["2"]],
    ]);
    expect(agent.memory.filter((m) => m.role === "tool").slice(0, 3).map((m) => m.content)).toEqual([
      "Created task #1: Survey",
      "Created task #2: Read",
      "Created task #3: Write",
    ]);
  });

  it("skip a malformed call when setting ids aside, and follow the ids already on the board", async () => {
    const board = new TaskBoard({ store: new ReversingStore(2) });
    await board.import([{ id: "1", subject: "done before", state: "completed" }]);
    const model = scriptedModel([
      { toolCalls: [create("A"), { name: "TaskCreate", arguments: { description: "no subject" } }, create("B")] },
      "done",
    ]);
    const agent = new Agent({ name: "planner", model, plugins: [board] });
    await agent.run("plan");
    const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results[0]).toBe("Created task #2: A");
    expect(results[1]).toMatch(/Invalid arguments for tool "TaskCreate"/);
    expect(results[2]).toBe("Created task #3: B");
    // The malformed call took no id: the next one is 4.
    expect(await board.store.reserveIds(1)).toEqual(["4"]);
  });

  it("refuses an id that was not set aside", async () => {
    const store = new MemoryTaskStore();
    const [id] = await store.reserveIds(1);
    await expect(store.create({ subject: "x", description: "" }, { id: "7" })).rejects.toThrow(/"7" was not reserved/);
    await store.create({ subject: "x", description: "" }, { id: id as string });
    await expect(store.create({ subject: "again", description: "" }, { id: id as string })).rejects.toThrow(/was not reserved/);
    await expect(store.reserveIds(0)).rejects.toThrow(/count from 1 to 1000/);
  });
});
