import type { StoredTodo } from "./todo.js";

/**
 * The current list as the last message of a model request. Kept at the tail, where attention is
 * strongest, instead of sinking into the middle of a long history with the tool call that wrote it.
 */
export function reciteTodos(items: readonly StoredTodo[], opts: { ids: boolean }): string {
  const lines = items.map((item) => `- ${opts.ids ? `#${item.id} ` : ""}[${item.status}] ${item.content}`);
  // A fully ticked list reads like a finished job; say plainly that the answer is still owed.
  const allDone = items.every((item) => item.status === "completed");
  const next = allDone
    ? "Every item is completed. Unless there is more to do, your next message is your answer to the user."
    : "Change it with write_todos as soon as an item's status changes.";
  return ["<todo-list>", "Your todo list as it stands now:", ...lines, next, "</todo-list>"].join("\n");
}
