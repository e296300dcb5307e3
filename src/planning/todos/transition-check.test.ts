import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import type { Todo } from "./todo.js";
import { todoList } from "./todo-list.js";

const write = (todos: Todo[]) => ({ toolCalls: [{ name: "write_todos", arguments: { todos } }] });
const pending: Todo[] = [
  { content: "A", status: "in_progress" },
  { content: "B", status: "pending" },
];

async function run(checkTransitions: boolean, turns: Todo[][]) {
  const model = scriptedModel([...turns.map(write), "ok"]);
  const todos = todoList({ checkTransitions });
  const agent = new Agent({ model, plugins: [todos] });
  await agent.run("go");
  return { todos: todos.todos, results: agent.memory.filter((m) => m.role === "tool").map((m) => m.content) };
}

describe("transition checks", () => {
  it("refuse pending → completed without in_progress, naming the item and keeping the list", async () => {
    const skip: Todo[] = [
      { content: "A", status: "completed" },
      { content: "B", status: "completed" },
    ];
    const { todos, results } = await run(true, [pending, skip]);
    expect(results[1]).toMatch(/Not applied: "B" would become completed without having been in_progress/);
    expect(results[1]).not.toMatch(/"A"/);
    expect(todos).toEqual(pending);
  });

  it("refuse an item that arrives already completed", async () => {
    const { results } = await run(true, [[{ content: "A", status: "completed" }]]);
    expect(results[0]).toMatch(/"A" would become completed/);
  });

  it("accept pending → in_progress → completed", async () => {
    const steps: Todo[][] = [
      pending,
      [
        { content: "A", status: "completed" },
        { content: "B", status: "in_progress" },
      ],
      [
        { content: "A", status: "completed" },
        { content: "B", status: "completed" },
      ],
    ];
    const { todos, results } = await run(true, steps);
    expect(results).toEqual(["Saved as #1 #2.", "Saved as #1 #2.", expect.stringMatching(/^<todo-list>\ncompleted: #1 #2\nAll completed/)]);
    expect(todos.every((t) => t.status === "completed")).toBe(true);
  });

  it("remember an item was in progress across a saved state", async () => {
    const first = new Agent({ model: scriptedModel([write(pending), "ok"]), plugins: [todoList({ checkTransitions: true })] });
    await first.run("go");
    const restored = todoList({ checkTransitions: true });
    const second = new Agent({ model: scriptedModel([write([{ content: "A", status: "completed" }]), "ok"]), plugins: [restored] });
    second.loadState(first.saveState());
    await second.run("go on");
    expect(restored.todos).toEqual([{ content: "A", status: "completed" }]);
  });

  it("are off by default", async () => {
    const { todos } = await run(false, [[{ content: "A", status: "completed" }]]);
    expect(todos).toEqual([{ content: "A", status: "completed" }]);
  });
});
