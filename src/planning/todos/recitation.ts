import type { StoredTodo } from "./todo.js";

/**
 * The current list as the last message of a model request. Kept at the tail, where attention is
 * strongest, instead of sinking into the middle of a long history with the tool call that wrote it.
 * It is sent with every request and is the one part of it a prompt cache cannot reuse, so it holds
 * the items and nothing else: each item once, in list order, under a line naming the status of the
 * run of items below it (a status per item would repeat it eight times in a list of eight), with
 * the id `updates` needs when ids are on.
 */
export function reciteTodos(items: readonly StoredTodo[], opts: { ids: boolean }): string {
  const lines: string[] = [];
  items.forEach((item, i) => {
    if (item.status !== items[i - 1]?.status) lines.push(`${item.status}:`);
    lines.push(opts.ids ? `#${item.id} ${item.content}` : item.content);
  });
  // A fully ticked list reads like a finished job; say plainly that the answer is still owed.
  if (items.every((item) => item.status === "completed")) lines.push("All completed: your next message is your answer to the user.");
  return ["<todo-list>", ...lines, "</todo-list>"].join("\n");
}
