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

  it("keeps a full copy of the list near the end of every request: in a write's result, else at the tail, never in memory", async () => {
    const big = defineTool({ name: "read_file", description: "Read a file.", parameters: z.object({ path: z.string() }), readOnly: true, execute: ({ path }) => `${path}: ${"x".repeat(1_600)}` });
    const model = scriptedModel([
      write(plan),
      read("a.ts"),
      { toolCalls: [{ name: "write_todos", arguments: { updates: { "1": "completed", "2": "in_progress" } } }, { name: "read_file", arguments: { path: "b.ts" } }] },
      read("c.ts"),
      read("d.ts"),
      { toolCalls: [{ name: "write_todos", arguments: { updates: { "2": "completed", "3": "in_progress" } } }] },
      "All migrated.",
    ]);
    const agent = new Agent({ model, tools: [big], plugins: [todoList({ reciteAfterTokens: 1_000 })] });
    await agent.run("migrate the logger");
    const tails = model.requests.map((req) => req.messages.at(-1)?.content ?? "");
    const results = agent.memory.filter((m) => m.role === "tool" && m.name === "write_todos").map((m) => m.content);
    // The complete list is in the model's own call; its result names the ids.
    expect(results[0]).toBe("Saved as #1–#3.");
    // Its copy was near (one read back), so the change names the item now in progress.
    expect(results[1]).toBe("Saved. In progress: #2 Migrate each file; 1 of 3 completed.");
    // Two reads later the copy lies more than 1,000 tokens back: the request ends with the list…
    expect(tails[4]).toBe("<todo-list>\ncompleted: #1\nin_progress:\n#2 Migrate each file\npending:\n#3 Run the tests\n</todo-list>");
    expect(tails.slice(0, 4).some((tail) => tail.startsWith("<todo-list>"))).toBe(false);
    // …and the next change, finding the copy more than halfway back, recites it in its result.
    expect(results[2]).toBe("<todo-list>\ncompleted: #1 #2\nin_progress:\n#3 Run the tests\n</todo-list>");
    expect(model.requests[6]?.messages.at(-1)).toMatchObject({ role: "tool", name: "write_todos", content: results[2] });
    expect(agent.memory.some((m) => m.role === "user" && m.content.includes("<todo-list>"))).toBe(false);
  });

  it("with reciteAfterTokens 0, recites the list as the last message of every request after the first write", async () => {
    const model = scriptedModel([write(plan), read("a.ts"), "done"]);
    await new Agent({ model, tools: [readFile], plugins: [todoList({ reciteAfterTokens: 0 })] }).run("go");
    expect(model.requests.map((req) => req.messages.at(-1)?.content.startsWith("<todo-list>\nin_progress:\n#1 Find the old logger calls"))).toEqual([false, true, true]);
  });

  it("recites the finished list in the result that completes it, with the answer still owed", async () => {
    const model = scriptedModel([write(plan), write(plan.map((todo) => ({ ...todo, status: "completed" }))), "Done: all three."]);
    const agent = new Agent({ model, plugins: [todoList()] });
    await agent.run("go");
    expect(agent.memory.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([
      "Saved as #1–#3.",
      "<todo-list>\ncompleted: #1 #2 #3\nAll completed: your next message is your answer to the user.\n</todo-list>",
    ]);
  });

  it("does not recite when recitation is turned off, and answers each write with a neutral acknowledgement", async () => {
    const model = scriptedModel([write(plan), write(plan.map((todo) => ({ ...todo, status: "completed" }))), "ok"]);
    const agent = new Agent({ model, plugins: [todoList({ recite: false })] });
    await agent.run("go");
    expect(model.requests.some((req) => req.messages.some((m) => m.content.includes("<todo-list>")))).toBe(false);
    expect(agent.memory.filter((m) => m.role === "tool").map((m) => m.content)).toEqual([TODOS_SAVED, TODOS_SAVED]);
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
    // The restored history holds the model's own complete list, so the request needs no recitation.
    expect(model.requests[0]?.messages.at(-1)?.content).toBe("continue");
    // A history without any copy (the plugin's state given to a new agent): the first request ends with the list.
    const fresh = todoList();
    fresh.loadState?.((saved as { plugins: Record<string, unknown> }).plugins["todos"]);
    const elsewhere = scriptedModel(["resumed"]);
    await new Agent({ model: elsewhere, plugins: [fresh] }).run("continue");
    expect(elsewhere.requests[0]?.messages.at(-1)?.content).toContain("in_progress:\n#1 Find the old logger calls");
  });

  it("refuses a saved state that is not its own, with a clear error", () => {
    const agent = new Agent({ model: scriptedModel([]), plugins: [todoList()] });
    const state = { ...agent.saveState(), plugins: { todos: { todos: "nope" } } };
    expect(() => agent.loadState(state)).toThrow(/todoList\.loadState expects/);
  });
});
