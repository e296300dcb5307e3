import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { todoList, type TodoListOptions } from "./todo-list.js";

const call = (args: unknown): ScriptedTurn => ({ toolCalls: [{ name: "write_todos", arguments: args }] });
const three = {
  todos: [
    { content: "A", status: "in_progress" },
    { content: "B", status: "pending" },
    { content: "C", status: "pending" },
  ],
};

async function run(turns: ScriptedTurn[], opts: TodoListOptions = {}) {
  const model = scriptedModel([...turns, "ok"]);
  const todos = todoList(opts);
  const agent = new Agent({ model, plugins: [todos] });
  await agent.run("go");
  const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
  return { todos, results, model };
}

describe("todo ids and the patch form (on by default)", () => {
  it("changes only the items `updates` names, by the ids the recitation shows", async () => {
    const { todos, results, model } = await run([call(three), call({ updates: { "1": "completed", "#2": "in_progress" } })], { reciteAfterTokens: 0 });
    expect(model.requests[1]?.messages.at(-1)?.content).toContain("in_progress:\n#1 A\npending:\n#2 B\n#3 C");
    expect(results).toEqual(["Saved as #1–#3.", "Saved. In progress: #2 B; 1 of 3 completed."]);
    expect(todos.todos).toEqual([
      { content: "A", status: "completed" },
      { content: "B", status: "in_progress" },
      { content: "C", status: "pending" },
    ]);
    expect(model.requests[2]?.messages.at(-1)?.content).toContain("completed: #1\nin_progress:\n#2 B\npending:\n#3 C");
  });

  it("keeps the ids of unchanged items through a complete list that reorders, drops and adds", async () => {
    const { model, results } = await run(
      [call(three), call({ todos: [{ content: "C", status: "pending" }, { content: "A", status: "in_progress" }, { content: "D", status: "pending" }] })],
      { reciteAfterTokens: 0 },
    );
    expect(results[1]).toBe("Saved as #3 #1 #4.");
    expect(model.requests[2]?.messages.at(-1)?.content).toContain("pending:\n#3 C\nin_progress:\n#1 A\npending:\n#4 D");
  });

  it("matches items by content when a complete list carries ids, as a model copying the recitation may send", async () => {
    const { model, results } = await run(
      [call(three), call({ todos: [{ id: 2, content: "B", status: "in_progress" }, { id: 1, content: "A", status: "completed" }] })],
      { reciteAfterTokens: 0 },
    );
    expect(results[1]).toBe("Saved as #2 #1.");
    expect(model.requests[2]?.messages.at(-1)?.content).toContain("in_progress:\n#2 B\ncompleted: #1\n</todo-list>");
  });

  it("answers an unknown id with the ids in the list, applying nothing", async () => {
    const { results, todos } = await run([
      call({ updates: { "1": "completed" } }),
      call(three),
      call({ updates: { "2": "completed", "9": "completed" } }),
      call({ updates: { first: "completed" } }),
    ]);
    expect(results[0]).toBe("Not applied: no item has id #1 (ids in the list: none yet). Use an id from the list, or send the complete list in `todos` to add items.");
    expect(results[2]).toMatch(/^Not applied: no item has id #9 \(ids in the list: #1, #2, #3\)/);
    expect(results[3]).toMatch(/^Not applied: no item has id "first" \(ids in the list: #1, #2, #3\)/);
    expect(todos.todos.map((t) => t.status)).toEqual(["in_progress", "pending", "pending"]);
  });

  it("names at most twenty ids, and bounds an unknown id it repeats", async () => {
    const many = { todos: Array.from({ length: 30 }, (_, i) => ({ content: `step ${i + 1}`, status: "pending" })) };
    const { results } = await run([call(many), call({ updates: { [`x${"y".repeat(5_000)}`]: "completed" } })]);
    expect(results[1]).toContain("#1, #2,");
    expect(results[1]).toContain("#20, and 10 more)");
    expect(results[1]).not.toContain("#21");
    expect(results[1]?.length).toBeLessThan(400);
  });

  it("refuses an unknown status, an id named twice, an empty patch, and both forms at once, naming what is accepted", async () => {
    const { results, todos } = await run([
      call(three),
      call({ updates: { "1": "done" } }),
      call({ updates: { "1": "completed", "#1": "pending" } }),
      call({ updates: {} }),
      call({ ...three, updates: { "1": "completed" } }),
    ]);
    expect(results[1]).toBe('Not applied: "done" for item #1 is not a status; use pending, in_progress, completed.');
    expect(results[2]).toMatch(/names item #1 twice/);
    expect(results[3]).toMatch(/`updates` is empty; send \{id: status\}/);
    expect(results[4]).toMatch(/either `todos`.*or `updates`/);
    expect(todos.todos[0]?.status).toBe("in_progress");
  });

  it("refuses an item without content, and trims what it keeps", async () => {
    const { results, todos } = await run([call({ todos: [{ content: "  A  ", status: "pending" }, { content: " ", status: "pending" }] }), call({ todos: [{ content: " A ", status: "pending" }] })]);
    expect(results[0]).toMatch(/item 2 of `todos` has no content/);
    expect(todos.todos).toEqual([{ content: "A", status: "pending" }]);
  });

  it("checks transitions in the patch form too", async () => {
    const { results } = await run([call(three), call({ updates: { "3": "completed" } })], { checkTransitions: true });
    expect(results[1]).toMatch(/"C" would become completed without having been in_progress/);
  });

  it("offers the patch form only with ids on, and by default only while the list is recited", () => {
    const props = (opts: TodoListOptions) => Object.keys((todoList(opts).tools?.()[0]?.parameters as { properties: object }).properties);
    expect(props({})).toEqual(["todos", "updates"]);
    expect(props({ ids: false })).toEqual(["todos"]);
    expect(props({ recite: false })).toEqual(["todos"]);
    expect(props({ recite: false, ids: true })).toEqual(["todos", "updates"]);
  });
});
