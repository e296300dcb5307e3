import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { defineTool } from "../../core/tool.js";
import { scriptedModel } from "../../models/scripted.js";
import { todoList } from "./todo-list.js";

const note = defineTool({ name: "note", description: "Note.", parameters: z.object({}), execute: () => "noted" });

describe("parallel write_todos calls in one turn", () => {
  it("applies none of them and gives each an error telling the model to send one call per turn", async () => {
    const first = [{ content: "A", status: "in_progress" }];
    const model = scriptedModel([
      { toolCalls: [{ name: "write_todos", arguments: { todos: first } }] },
      {
        toolCalls: [
          { name: "write_todos", arguments: { todos: [{ content: "B", status: "in_progress" }] } },
          { name: "note", arguments: {} },
          { name: "write_todos", arguments: { todos: [{ content: "C", status: "pending" }] } },
        ],
      },
      "ok",
    ]);
    const todos = todoList();
    const agent = new Agent({ model, tools: [note], plugins: [todos] });
    const updates: AgentEvent[] = [];
    agent.on((event) => event.type === "todos-updated" && updates.push(event));
    await agent.run("go");

    expect(todos.todos).toEqual(first);
    expect(updates).toHaveLength(1);
    const results = model.requests[2]?.messages.filter((m) => m.role === "tool") ?? [];
    expect(results.map((m) => m.content)).toEqual([
      "Saved as #1.",
      expect.stringMatching(/called write_todos 2 times.*none of those calls was applied.*one write_todos call per turn/),
      "noted",
      expect.stringMatching(/called write_todos 2 times/),
    ]);
    // Only the first write went through: the list is as it wrote it.
    expect(todos.todos).toEqual(first);
  });
});
