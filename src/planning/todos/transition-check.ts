import type { StoredTodo, Todo } from "./todo.js";

/** One item of a write beside the item it replaces (none for a new item). */
export type TodoChange = { before: StoredTodo | undefined; after: Todo };

/**
 * With transition checks on, an item is completed only after a write that showed it in progress.
 * Returns the refusal the model sees, or null when the write may be applied.
 */
export function checkTransitions(changes: readonly TodoChange[]): string | null {
  const skipped = changes.filter(
    ({ before, after }) => after.status === "completed" && before?.status !== "completed" && !before?.started,
  );
  if (skipped.length === 0) return null;
  const names = skipped.map(({ after }) => `"${after.content}"`).join(", ");
  return (
    `Not applied: ${names} would become completed without having been in_progress. ` +
    "Mark an item in_progress when you start it, then completed when it is done; send the list again with that order."
  );
}
