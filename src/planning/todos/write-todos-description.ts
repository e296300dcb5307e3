/**
 * What the model reads about the todo list, in two parts: the tool's description (how to write the
 * list) and a few lines for the system prompt (when to keep one, and that it is not the answer). Both
 * are sent with every request and served from the prompt cache after the first, so they say each rule
 * of the reference once, in as few words as say it: use it only for work of three or more steps,
 * exactly one item in progress, mark an item done at once, a blocked item stays in progress with an
 * item added for the blocker, and the run ends with the answer, not with a ticked list.
 */
export function writeTodosDescription(opts: { ids: boolean }): string {
  const writing = opts.ids
    ? "Write it once with `todos`, the first item in_progress; then send only what changes, `updates` {id: status}, in the same turn as the call that starts the next step. `todos` again adds, drops or reorders items."
    : "Each call replaces the whole list; send it in the same turn as the call that starts the next step.";
  return [
    "Your plan for work of three or more steps; for less, just do the work.",
    writing,
    "Keep exactly one item in_progress and mark it completed as soon as it is done. If it is blocked, keep it in_progress and add an item for what blocks it.",
  ].join("\n");
}

/** The todo list's part of the system prompt. */
export const TODO_INSTRUCTIONS =
  "Keep a todo list with write_todos only for work of three or more steps. Work through it until every item is completed; a completed list is not the answer: end with a message that gives the user what they asked for.";
