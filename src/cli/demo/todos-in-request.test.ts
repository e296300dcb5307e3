import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { todoList } from "../../planning/todos/todo-list.js";
import { todosInRequest } from "./todos-in-request.js";

describe("todosInRequest", () => {
  it("reads each item's id, text and status off the model's saved writes, in order, refused ones left out", async () => {
    const write = (args: object) => ({ toolCalls: [{ name: "write_todos", arguments: args }] });
    const todos = [
      { content: "Survey", status: "completed" },
      { content: "Read #2 files", status: "in_progress" },
      { content: "Write", status: "pending" },
      { content: "Check", status: "completed" },
    ];
    const model = scriptedModel([write({ todos }), write({ updates: { "9": "completed" } }), write({ updates: { "2": "completed", "3": "in_progress" } }), "ok"]);
    await new Agent({ model, plugins: [todoList()] }).run("go");
    expect(todosInRequest(model.requests[0]!)).toBeNull();
    expect(todosInRequest(model.requests[1]!)).toEqual([
      { id: "1", content: "Survey", status: "completed" },
      { id: "2", content: "Read #2 files", status: "in_progress" },
      { id: "3", content: "Write", status: "pending" },
      { id: "4", content: "Check", status: "completed" },
    ]);
    expect(todosInRequest(model.requests[3]!)?.map((todo) => todo.status)).toEqual(["completed", "completed", "in_progress", "completed"]);
  });
});
