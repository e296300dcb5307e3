import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { todoList } from "./todo-list.js";

const call = (args: unknown): ScriptedTurn => ({ toolCalls: [{ name: "write_todos", arguments: args }] });
const three = {
  todos: [
    { content: "A", status: "in_progress" },
    { content: "B", status: "pending" },
    { content: "C", status: "pending" },
  ],
};

async function run(turns: ScriptedTurn[], opts = {}) {
  const model = scriptedModel([...turns, "ok"]);
  const todos = todoList({ ids: true, ...opts });
  const agent = new Agent({ model, plugins: [todos] });
  await agent.run("go");
  const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
  return { todos, results, model, agent };
}

describe("todo ids and the patch form", () => {
  it("updates single items by id, leaving the rest untouched", async () => {
    const { todos, results, model } = await run([
      call(three),
      call({ updates: [{ id: 1, status: "completed" }, { id: 2, status: "in_progress" }] }),
    ]);
    expect(results).toEqual(["Saved.", "Saved."]);
    expect(todos.todos).toEqual([
      { content: "A", status: "completed" },
      { content: "B", status: "in_progress" },
      { content: "C", status: "pending" },
    ]);
    expect(model.requests[2]?.messages.at(-1)?.content).toContain("#2 [in_progress] B");
  });

  it("keeps ids stable through a full replacement that reorders, renames and adds items", async () => {
    const { model } = await run([
      call(three),
      call({
        todos: [
          { id: 3, content: "C, renamed", status: "pending" },
          { content: "A", status: "in_progress" },
          { content: "D", status: "pending" },
        ],
      }),
    ]);
    const tail = model.requests[2]?.messages.at(-1)?.content ?? "";
    expect(tail).toMatch(/#3 \[pending\] C, renamed\n#1 \[in_progress\] A\n#4 \[pending\] D/);
  });

  it("answers an unknown id or a doubled id with an error naming the ids in the list", async () => {
    const { results, todos } = await run([
      call(three),
      call({ updates: [{ id: 9, status: "completed" }] }),
      call({ updates: [{ id: 1, status: "completed" }, { id: 1, status: "pending" }] }),
      call({ todos: [], updates: [] }),
    ]);
    expect(results[1]).toMatch(/No item has id #9 \(ids in the list: #1, #2, #3\)/);
    expect(results[2]).toMatch(/#1 appears twice/);
    expect(results[3]).toMatch(/either `todos`.*or `updates`/);
    expect(todos.todos[0]?.status).toBe("in_progress");
  });

  it("checks transitions in the patch form too", async () => {
    const { results } = await run([call(three), call({ updates: [{ id: 3, status: "completed" }] })], { checkTransitions: true });
    expect(results[1]).toMatch(/"C" would become completed without having been in_progress/);
  });

  it("accepts an id sent as a string of digits", async () => {
    const { todos } = await run([call(three), call({ updates: [{ id: "1", status: "completed" }] })]);
    expect(todos.todos[0]?.status).toBe("completed");
  });

  it("offers the patch form only when ids are on", () => {
    const withIds = todoList({ ids: true }).tools?.()[0]?.parameters as { properties: object };
    const plain = todoList().tools?.()[0]?.parameters as { properties: object; required: string[] };
    expect(Object.keys(withIds.properties)).toEqual(["todos", "updates"]);
    expect(Object.keys(plain.properties)).toEqual(["todos"]);
    expect(plain.required).toEqual(["todos"]);
  });
});
