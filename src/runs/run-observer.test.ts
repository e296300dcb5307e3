import { describe, expect, it } from "vitest";
import { Agent } from "../core/agent.js";
import type { AgentEvent } from "../core/events.js";
import { scriptedModel } from "../models/scripted.js";
import { todoList } from "../planning/todos/todo-list.js";
import { AgentSession } from "./agent-session.js";
import { todosChecklist } from "./checklist.js";
import { observeSession } from "./run-observer.js";

function todosSession(): AgentSession {
  const todos = todoList();
  const model = scriptedModel([
    { toolCalls: [{ name: "write_todos", arguments: { todos: [{ content: "Read a", status: "in_progress" }] } }] },
    { toolCalls: [{ name: "write_todos", arguments: { todos: [{ content: "Read a", status: "completed" }] } }] },
    "Done.",
  ]);
  const agent = new Agent({ model, plugins: [todos] });
  return new AgentSession("todos", agent, { checklist: async () => todosChecklist(todos.todos), save: async () => undefined });
}

describe("observeSession", () => {
  it("keeps passing events on after the listener fails (a busy store), and reports the first failure once", async () => {
    const session = todosSession();
    const seen: AgentEvent["type"][] = [];
    const failures: unknown[] = [];
    const observer = observeSession(
      session,
      (event) => {
        // Every tool-end fails to record, as a write hitting SQLITE_BUSY would.
        if (event.type === "tool-end") throw new Error("SQLITE_BUSY: database is locked");
        seen.push(event.type);
      },
      (error) => failures.push(error),
    );
    const outcome = await session.run("Read a", new AbortController().signal);
    await expect(observer.settled()).resolves.toBeUndefined();
    observer.off();

    expect(outcome.stopReason).toBe("final");
    expect(seen.filter((type) => type === "checklist-updated").length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)).toBe("run-end");
    expect(failures).toHaveLength(1);
    expect(String(failures[0])).toContain("SQLITE_BUSY");
  });
});
