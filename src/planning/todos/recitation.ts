import { estimateMessageTokens } from "../../core/tokens.js";
import type { Message } from "../../core/messages.js";
import type { StoredTodo } from "./todo.js";
import { TODOS_SAVED, WRITE_TODOS } from "./write-todos-tool.js";

/** How a recitation starts: how a request's latest copy of the list is found again. */
export const RECITATION_START = "<todo-list>";

/** How the result of a complete list (`todos`) starts: the list itself is in the model's call just before it. */
export const LIST_SAVED = "Saved as";

/** The result of a complete list: the ids its items got, in list order ("Saved as #1–#8." when they run in sequence). */
export function savedIds(items: readonly StoredTodo[]): string {
  const ids = items.map((item) => item.id);
  const first = ids[0] as number;
  const inSequence = ids.length > 2 && ids.every((id, i) => id === first + i);
  return `${LIST_SAVED} ${inSequence ? `#${first}–#${ids.at(-1) as number}` : ids.map((id) => `#${id}`).join(" ")}.`;
}

/**
 * The list as the model reads it: in the result of each write that changed a status, and at the
 * tail of a request whose latest copy sank far behind (see `reciteAfterTokens`). Each item once, in
 * list order, under a line naming the status of the run of items below it, with the id `updates`
 * takes when ids are on. Completed items stay as their ids only: what is left to do is what keeps the
 * goal in view, and every token here is sent again with every later request.
 */
export function reciteTodos(items: readonly StoredTodo[], opts: { ids: boolean }): string {
  const lines: string[] = [];
  items.forEach((item, i) => {
    const runStarts = item.status !== items[i - 1]?.status;
    if (item.status === "completed" && opts.ids) {
      if (runStarts) lines.push(`completed: #${item.id}`);
      else lines[lines.length - 1] += ` #${item.id}`;
      return;
    }
    if (runStarts) lines.push(`${item.status}:`);
    lines.push(opts.ids ? `#${item.id} ${item.content}` : item.content);
  });
  // A fully ticked list reads like a finished job; say plainly that the answer is still owed.
  if (items.every((item) => item.status === "completed")) lines.push("All completed: your next message is your answer to the user.");
  return [RECITATION_START, ...lines, "</todo-list>"].join("\n");
}

/** A write's result when a full copy of the list is near: the item now in progress and how many are done. */
export function progressLine(items: readonly StoredTodo[], opts: { ids: boolean }): string {
  const current = items.find((item) => item.status === "in_progress");
  const done = items.filter((item) => item.status === "completed").length;
  const focus = current ? `In progress: ${opts.ids ? `#${current.id} ` : ""}${current.content}` : "Nothing in progress";
  return `Saved. ${focus}; ${done} of ${items.length} completed.`;
}

/**
 * Estimated tokens of the request after its latest copy of the list (infinitely many when it has
 * none, as after a resume into a new history): a recitation, or the result of a complete list the
 * model wrote out in the call before it.
 */
export function tokensSinceList(messages: readonly Message[]): number {
  const at = messages.findLastIndex(
    (message) =>
      message.content.startsWith(RECITATION_START) ||
      (message.role === "tool" && message.name === WRITE_TODOS && (message.content.startsWith(LIST_SAVED) || message.content === TODOS_SAVED)),
  );
  return at < 0 ? Number.POSITIVE_INFINITY : estimateMessageTokens(messages.slice(at + 1));
}
