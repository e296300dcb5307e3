/**
 * The description of `write_todos`. It carries the behaviour: without these rules a model either
 * lists todos for trivial work, lets the list go stale, or stops after ticking the last item.
 */
export function writeTodosDescription(opts: { ids: boolean; recited: boolean }): string {
  const writing = opts.ids
    ? [
        "Every item has a stable id. Send `todos` with the complete list to create or restructure it (keep the id of each item that stays; new items get one), or send `updates` with only the items that change, by id.",
      ]
    : ["Each call replaces the whole list: send every item, each with its content and a status of pending, in_progress or completed."];
  const recitation = opts.recited ? ["- The current list is shown to you at the end of every request; there is no need to restate it."] : [];
  return [
    "Keep a todo list for a task that takes three or more steps, so you and the user can see what is done and what is next. For work of fewer than three steps, skip this tool and just do the work.",
    "",
    ...writing,
    "",
    "Rules:",
    "- Update the list the moment an item changes. Never save several changes for one later call.",
    "- Keep exactly one item in_progress until every item is completed: complete the current item and start the next one in the same call.",
    "- There is no failed status. When an item is blocked, leave it in_progress and add a new item naming what must be solved first.",
    "- Call write_todos at most once per turn.",
    "- The list tracks the work; it is not the answer. After your last write_todos call, give the user your answer in a message.",
    ...recitation,
    "",
    "Once more: if the task takes fewer than three steps, do not use this tool.",
  ].join("\n");
}
