import { boundedQuote } from "../../core/bounded-quote.js";
import type { StoredTodo, Todo } from "./todo.js";

/** One item of a write beside the item it replaces (none for a new item). */
export type TodoChange = { before: StoredTodo | undefined; after: Todo };

/** How many items a refusal names at most. */
const NAMED = 5;

/**
 * With transition checks on, an item is completed only after a write that showed it in progress.
 * Returns the refusal the model sees, or null when the write may be applied.
 */
export function checkTransitions(changes: readonly TodoChange[]): string | null {
  const skipped = changes.filter(
    ({ before, after }) => after.status === "completed" && before?.status !== "completed" && !before?.started,
  );
  if (skipped.length === 0) return null;
  // Item texts are model input: name a few, each bounded.
  const names = skipped.slice(0, NAMED).map(({ after }) => boundedQuote(after.content, 80));
  if (skipped.length > NAMED) names.push(`and ${skipped.length - NAMED} more`);
  return (
    `Not applied: ${names.join(", ")} would become completed without having been in_progress. ` +
    "Mark an item in_progress when you start it, and completed in a later call once it is done."
  );
}
