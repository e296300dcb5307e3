import type { ModelRequest } from "../../core/model.js";
import { RECITATION_START } from "../../planning/todos/recitation.js";
import type { StoredTodo } from "../../planning/todos/todo.js";
import { reviseTodos, type TodoWrite } from "../../planning/todos/todo-revision.js";
import { TODOS_SAVED, WRITE_TODOS } from "../../planning/todos/write-todos-tool.js";

export type RecitedTodo = { id: string; content: string; status: "pending" | "in_progress" | "completed" };

/** Whether a write_todos result says the write was saved (its list, or a line saying what is in progress), not refused. */
export function writeSaved(result: string): boolean {
  return result.startsWith(TODOS_SAVED) || result.startsWith(RECITATION_START);
}

/**
 * The todo list this request shows the model, with the ids `updates` takes, or null before the
 * first write: the model's own write_todos calls that were saved, replayed in order, as the plugin
 * applied them (the recitations in the results show the same list). A brain that decides from this,
 * as a model reads its history, picks up right after a resume and never needs to count its own turns.
 */
export function todosInRequest(req: ModelRequest): RecitedTodo[] | null {
  const results = new Map(req.messages.flatMap((m) => (m.role === "tool" && m.name === WRITE_TODOS ? [[m.toolCallId, m.content] as const] : [])));
  let items: StoredTodo[] | null = null;
  let nextId = 1;
  for (const message of req.messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? []) {
      const result = results.get(call.id);
      if (call.name !== WRITE_TODOS || result === undefined || !writeSaved(result)) continue;
      const revision = reviseTodos(items ?? [], JSON.parse(call.arguments) as TodoWrite, { nextId, checkTransitions: false });
      if ("error" in revision) continue;
      ({ items, nextId } = revision);
    }
  }
  return items && items.map((item) => ({ id: String(item.id), content: item.content, status: item.status }));
}
