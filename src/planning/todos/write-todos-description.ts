/**
 * The description of `write_todos`. It carries the behaviour: without these rules a model either
 * lists todos for trivial work, lets the list go stale, or stops after ticking the last item. It is
 * sent with every request, so each rule is said once, in as few words as keep it clear.
 */
export function writeTodosDescription(opts: { ids: boolean; recited: boolean }): string {
  const writing = opts.ids
    ? "Items have stable ids: send `todos` with the complete list to create or restructure it (keep the ids of items that stay), or `updates` with only the items that change, by id."
    : "Each call replaces the whole list (statuses pending, in_progress, completed).";
  return [
    "Keep a todo list for tasks of three or more steps; never for fewer than three steps.",
    writing,
    "Update the moment an item changes; never save several changes for later.",
    "Keep exactly one item in_progress until every item is completed.",
    "No failed status: if blocked, leave it in_progress and add a new item for the blocker.",
    "At most once per turn.",
    "The list is not the answer. After your last write_todos call, give the user your answer.",
    ...(opts.recited ? ["The list is shown to you at the end of every request."] : []),
    "Again: for fewer than three steps, do not use it.",
  ].join("\n");
}
