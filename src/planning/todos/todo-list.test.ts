import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { defineTool } from "../../core/tool.js";
import { scriptedModel } from "../../models/scripted.js";
import type { Todo } from "./todo.js";
import { todoList } from "./todo-list.js";
import { TODOS_SAVED } from "./write-todos-tool.js";

const readFile = defineTool({
  name: "read_file",
  description: "Read a file.",
  parameters: z.object({ path: z.string() }),
  readOnly: true,
  execute: ({ path }) => `contents of ${path}`,
});

const plan: Todo[] = [
  { content: "Find the old logger calls", status: "in_progress" },
  { content: "Migrate each file", status: "pending" },
  { content: "Run the tests", status: "pending" },
];

function write(todos: unknown) {
  return { toolCalls: [{ name: "write_todos", arguments: { todos } }] };
}
const read = (path: string) => ({ toolCalls: [{ name: "read_file", arguments: { path } }] });

describe("todoList", () => {
  it("offers one tool, write_todos, that replaces the whole list", async () => {
    const todos = todoList();
    const next: Todo[] = [{ content: "Only this", status: "in_progress" }];
    const model = scriptedModel([write(plan), write(next), "done"]);
    const agent = new Agent({ model, plugins: [todos] });
    expect(todos.tools?.().map((t) => t.name)).toEqual(["write_todos"]);
    await agent.run("migrate the logger");
    expect(todos.todos).toEqual(next);
  });

  it("recites the current list as the last message of every request after the first write, never in memory", async () => {
    const model = scriptedModel([
      read("a.ts"),
      write(plan),
      read("b.ts"),
      write([{ ...plan[0], status: "completed" }, { ...plan[1], status: "in_progress" }, plan[2]]),
      read("c.ts"),
      "All migrated.",
    ]);
    const agent = new Agent({ model, tools: [readFile], plugins: [todoList()] });
    await agent.run("migrate the logger");

    const lastMessages = model.requests.map((req) => req.messages.at(-1)?.content ?? "");
    expect(lastMessages[0]).toBe("migrate the logger");
    expect(lastMessages[1]).not.toContain("<todo-list>");
    for (const text of lastMessages.slice(2, 4)) expect(text).toContain("in_progress:\n#1 Find the old logger calls");
    for (const text of lastMessages.slice(4)) {
      expect(text).toContain("completed:\n#1 Find the old logger calls");
      expect(text).toContain("in_progress:\n#2 Migrate each file");
    }
    expect(model.requests.every((req) => req.messages.filter((m) => m.content.includes("<todo-list>")).length <= 1)).toBe(true);
    expect(agent.memory.some((m) => m.content.includes("<todo-list>"))).toBe(false);
  });

  it("answers a write with a short acknowledgement that does not restate the list", async () => {
    const model = scriptedModel([write(plan), "ok"]);
    const agent = new Agent({ model, plugins: [todoList()] });
    await agent.run("go");
    const result = agent.memory.find((m) => m.role === "tool");
    expect(result?.content).toBe(TODOS_SAVED);
  });

  it("does not recite when recitation is turned off", async () => {
    const model = scriptedModel([write(plan), "ok"]);
    const agent = new Agent({ model, plugins: [todoList({ recite: false })] });
    await agent.run("go");
    expect(model.requests[1]?.messages.some((m) => m.content.includes("<todo-list>"))).toBe(false);
    expect(model.requests[1]?.tools[0]?.description).not.toMatch(/`updates`/);
  });

  it("emits todos-updated with the new list after each applied write", async () => {
    const model = scriptedModel([write(plan), write([{ content: "x", status: "bogus" }]), "ok"]);
    const agent = new Agent({ model, plugins: [todoList()] });
    const events: AgentEvent[] = [];
    agent.on((event) => event.type === "todos-updated" && events.push(event));
    await agent.run("go");
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "todos-updated", agent: "agent", todos: plan });
  });

  it("turns a malformed write into an error result the model can act on, keeping the list", async () => {
    const model = scriptedModel([write(plan), write([{ content: "", status: "failed" }]), "ok"]);
    const todos = todoList();
    const agent = new Agent({ model, plugins: [todos] });
    await agent.run("go");
    const result = agent.memory.filter((m) => m.role === "tool")[1];
    expect(result?.content).toMatch(/Invalid arguments for tool "write_todos"/);
    expect(result?.content).toMatch(/todos\.0\.status/);
    expect(todos.todos).toEqual(plan);
  });

  it("round-trips its list through the agent's saved state", async () => {
    const first = new Agent({ model: scriptedModel([write(plan), "ok"]), plugins: [todoList()] });
    await first.run("go");
    const saved = JSON.parse(JSON.stringify(first.saveState()));

    const model = scriptedModel(["resumed"]);
    const restored = todoList();
    const second = new Agent({ model, plugins: [restored] });
    second.loadState(saved);
    expect(restored.todos).toEqual(plan);
    expect(second.saveState()).toEqual(saved);
    await second.run("continue");
    expect(model.requests[0]?.messages.at(-1)?.content).toContain("in_progress:\n#1 Find the old logger calls");
  });

  it("refuses a saved state that is not its own, with a clear error", () => {
    const agent = new Agent({ model: scriptedModel([]), plugins: [todoList()] });
    const state = { ...agent.saveState(), plugins: { todos: { todos: "nope" } } };
    expect(() => agent.loadState(state)).toThrow(/todoList\.loadState expects/);
  });
});
