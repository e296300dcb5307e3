/**
 * The description of `write_todos`. It carries the behaviour: without these rules a model either
 * lists todos for trivial work, lets the list go stale, or marks blocked work completed. It is sent
 * with every request, so it holds only what the model cannot learn elsewhere: the list it writes is
 * recited at the tail (ids included), a second call in one turn is refused with the reason, and once
 * every item is completed the recitation and the final-answer guard ask for the answer.
 */
export function writeTodosDescription(opts: { ids: boolean }): string {
  const writing = opts.ids
    ? "Create the list with `todos`, then send only changes in `updates` as {id: status}; `todos` again to add, drop or reorder."
    : "Each call replaces the whole list.";
  return [
    "Only for tasks of three or more steps.",
    writing,
    "Keep one item in_progress; update items the moment they change. If blocked, keep it in_progress and add an item for the blocker.",
  ].join("\n");
}
