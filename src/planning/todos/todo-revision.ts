import { checkTransitions, type TodoChange } from "./transition-check.js";
import type { StoredTodo, TodoStatus } from "./todo.js";

/** What one write_todos call asks for: the complete list, or (with ids on) changes to single items. */
export type TodoWrite = {
  todos?: { id?: number | undefined; content: string; status: TodoStatus }[] | undefined;
  updates?: { id: number; content?: string | undefined; status?: TodoStatus | undefined }[] | undefined;
};

export type Revision = { items: StoredTodo[]; nextId: number } | { error: string };

/**
 * Turns the current list and one write into the next list. Items keep their id (and whether they
 * were ever in progress) across writes: by the id the model sent, else by identical content.
 */
export function reviseTodos(
  current: readonly StoredTodo[],
  write: TodoWrite,
  opts: { nextId: number; checkTransitions: boolean },
): Revision {
  if ((write.todos === undefined) === (write.updates === undefined)) {
    return { error: "Send either `todos` (the complete list) or `updates` (changes to items by id), not both and not neither." };
  }
  const changes = write.todos ? replaceAll(current, write.todos) : patch(current, write.updates ?? []);
  if ("error" in changes) return changes;
  if (opts.checkTransitions) {
    const refusal = checkTransitions(changes);
    if (refusal) return { error: refusal };
  }
  let nextId = opts.nextId;
  const items = changes.map(({ before, after }) => ({
    id: before?.id ?? nextId++,
    content: after.content,
    status: after.status,
    started: (before?.started ?? false) || after.status === "in_progress",
  }));
  return { items, nextId };
}

function replaceAll(current: readonly StoredTodo[], todos: NonNullable<TodoWrite["todos"]>): TodoChange[] | { error: string } {
  const unmatched = new Set(current);
  const changes: TodoChange[] = [];
  for (const { id, content, status } of todos) {
    let before: StoredTodo | undefined;
    if (id !== undefined) {
      before = current.find((item) => item.id === id);
      if (!before) return { error: unknownId(id, current) };
      if (!unmatched.has(before)) return { error: `Item #${id} appears twice in \`todos\`; list each item once.` };
    } else {
      before = [...unmatched].find((item) => item.content === content);
    }
    if (before) unmatched.delete(before);
    changes.push({ before, after: { content, status } });
  }
  return changes;
}

function patch(current: readonly StoredTodo[], updates: NonNullable<TodoWrite["updates"]>): TodoChange[] | { error: string } {
  const changes: TodoChange[] = current.map((item) => ({ before: item, after: { content: item.content, status: item.status } }));
  const seen = new Set<number>();
  for (const update of updates) {
    const change = changes.find(({ before }) => before?.id === update.id);
    if (!change) return { error: unknownId(update.id, current) };
    if (seen.has(update.id)) return { error: `Item #${update.id} appears twice in \`updates\`; send one change per item.` };
    seen.add(update.id);
    change.after = { content: update.content ?? change.after.content, status: update.status ?? change.after.status };
  }
  return changes;
}

function unknownId(id: number, current: readonly StoredTodo[]): string {
  const known = current.map((item) => `#${item.id}`).join(", ") || "none yet";
  return `No item has id #${id} (ids in the list: ${known}). Use an id from the list, or send the complete list in \`todos\` to add items.`;
}
