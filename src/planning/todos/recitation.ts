import type { StoredTodo } from "./todo.js";

/**
 * The current list as the last message of a model request. Kept at the tail, where attention is
 * strongest, instead of sinking into the middle of a long history with the tool call that wrote it.
 * It is sent with every request, so it holds the items and one short line, nothing else.
 */
export function reciteTodos(items: readonly StoredTodo[], opts: { ids: boolean }): string {
  const lines = items.map((item) => `${opts.ids ? `#${item.id} ` : ""}[${item.status}] ${item.content}`);
  // A fully ticked list reads like a finished job; say plainly that the answer is still owed.
  const allDone = items.every((item) => item.status === "completed");
  const next = allDone ? "All completed: unless more remains, your next message is your answer to the user." : "Update it with write_todos.";
  return ["<todo-list>", ...lines, next, "</todo-list>"].join("\n");
}
