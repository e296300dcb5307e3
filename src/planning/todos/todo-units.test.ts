import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { todoList, type TodoListOptions } from "./todo-list.js";

type Item = { content: string; status: "pending" | "in_progress" | "completed" };
const write = (todos: Item[]): ScriptedTurn => ({ toolCalls: [{ name: "write_todos", arguments: { todos } }] });

async function run(turns: ScriptedTurn[], opts: TodoListOptions = {}) {
  const agent = new Agent({ model: scriptedModel([...turns, "Done."]), plugins: [todoList(opts)] });
  const events: AgentEvent[] = [];
  agent.on((e) => events.push(e));
  await agent.run("Fix the build.");
  const units = events.flatMap((e) =>
    e.type === "unit-start" ? [`started ${e.unit.kind}:${e.unit.id} ${e.unit.title}`] : e.type === "unit-end" ? [`finished ${e.unit.kind}:${e.unit.id}: ${e.outcome}`] : [],
  );
  return { events, units };
}

describe("todoList units of work", () => {
  it("announces an item started and completed inside write_todos; a handover finishes one before starting the next", async () => {
    const { events, units } = await run([
      write([{ content: "Read the log", status: "in_progress" }, { content: "Patch the config", status: "pending" }]),
      write([{ content: "Read the log", status: "completed" }, { content: "Patch the config", status: "in_progress" }]),
    ]);
    expect(units).toEqual(["started todo:1 Read the log", "finished todo:1: Read the log", "started todo:2 Patch the config"]);
    const skipped = new Set(["model-start", "text-delta", "tool-call-start", "model-end", "todos-updated"]);
    const order = events.filter((e) => !skipped.has(e.type)).map((e) => e.type);
    expect(order.slice(1, 9)).toEqual(["tool-start", "unit-start", "tool-end", "turn-end", "tool-start", "unit-end", "unit-start", "tool-end"]);
  });

  it("keeps an item's unit id when items are added before it, and tells two items with the same text apart", async () => {
    const { units } = await run([
      write([{ content: "Run the tests", status: "in_progress" }]),
      write([
        { content: "Install deps", status: "completed" },
        { content: "Run the tests", status: "completed" },
        { content: "Run the tests", status: "in_progress" },
      ]),
    ]);
    expect(units).toEqual([
      "started todo:1 Run the tests",
      "finished todo:2: Install deps",
      "finished todo:1: Run the tests",
      "started todo:3 Run the tests",
    ]);
  });

  it("uses the ids the model sends in `updates`", async () => {
    const { units } = await run([
      write([{ content: "Read the log", status: "pending" }, { content: "Patch the config", status: "pending" }]),
      { toolCalls: [{ name: "write_todos", arguments: { updates: { "2": "in_progress" } } }] },
      { toolCalls: [{ name: "write_todos", arguments: { updates: { "2": "completed" } } }] },
    ]);
    expect(units).toEqual(["started todo:2 Patch the config", "finished todo:2: Patch the config"]);
  });

  it("finishes an item in progress that goes back to pending or leaves the list, saying so", async () => {
    const { units } = await run([
      write([{ content: "A", status: "in_progress" }, { content: "B", status: "pending" }]),
      write([{ content: "A", status: "pending" }, { content: "B", status: "in_progress" }]),
      write([{ content: "A", status: "pending" }]),
    ]);
    expect(units).toEqual([
      "started todo:1 A",
      "finished todo:1: Set back to pending before it was completed.",
      "started todo:2 B",
      "finished todo:2: Removed from the list before it was completed.",
    ]);
  });
});
