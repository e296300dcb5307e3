import { boundedQuote } from "../../core/bounded-quote.js";
import { checkTransitions, type TodoChange } from "./transition-check.js";
import { TODO_STATUSES, type StoredTodo, type TodoStatus } from "./todo.js";

/** What one write_todos call asks for: the complete list, or (with ids on) new statuses of items by id. */
export type TodoWrite = {
  todos?: { content: string; status: TodoStatus }[] | undefined;
  updates?: Record<string, string> | undefined;
};

export type Revision = { items: StoredTodo[]; nextId: number } | { error: string };

/** How many ids an error names at most: the list may be long, and the model needs a few to go on. */
const IDS_NAMED = 20;

/**
 * Turns the current list and one write into the next list, or refuses the whole write. Items keep
 * their id (and whether they were ever in progress) across writes: by the id an update names, and
 * through a complete list by identical content.
 */
export function reviseTodos(
  current: readonly StoredTodo[],
  write: TodoWrite,
  opts: { nextId: number; checkTransitions: boolean },
): Revision {
  if ((write.todos === undefined) === (write.updates === undefined)) {
    return { error: "Not applied: send either `todos` (the complete list) or `updates` ({id: status} for the items that change), not both and not neither." };
  }
  const changes = write.todos ? replaceAll(current, write.todos) : patch(current, write.updates ?? {});
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
  for (const [index, todo] of todos.entries()) {
    const content = todo.content.trim();
    if (content === "") return { error: `Not applied: item ${index + 1} of \`todos\` has no content; say what the step is in a few words.` };
    const before = [...unmatched].find((item) => item.content === content);
    if (before) unmatched.delete(before);
    changes.push({ before, after: { content, status: todo.status } });
  }
  return changes;
}

function patch(current: readonly StoredTodo[], updates: NonNullable<TodoWrite["updates"]>): TodoChange[] | { error: string } {
  const entries = Object.entries(updates);
  if (entries.length === 0) return { error: "Not applied: `updates` is empty; send {id: status} for each item that changes." };
  const changes: TodoChange[] = current.map((item) => ({ before: item, after: { content: item.content, status: item.status } }));
  const byId = new Map(changes.map((change) => [change.before?.id, change]));
  const seen = new Set<number>();
  for (const [key, status] of entries) {
    const id = idOf(key);
    const change = byId.get(id);
    if (!change) return { error: unknownId(key, current) };
    if (seen.has(id)) return { error: `Not applied: \`updates\` names item #${id} twice; send one status per item.` };
    seen.add(id);
    if (!isStatus(status)) {
      return { error: `Not applied: ${boundedQuote(status, 40)} for item #${id} is not a status; use ${TODO_STATUSES.join(", ")}.` };
    }
    change.after = { ...change.after, status };
  }
  return changes;
}

/** An id as a JSON key: "3", or "#3" as the recitation shows it; NaN for anything else. */
function idOf(key: string): number {
  const match = /^#?(\d{1,9})$/.exec(key.trim());
  return match ? Number(match[1]) : Number.NaN;
}

function isStatus(value: string): value is TodoStatus {
  return (TODO_STATUSES as readonly string[]).includes(value);
}

function unknownId(key: string, current: readonly StoredTodo[]): string {
  const id = idOf(key);
  const named = Number.isNaN(id) ? boundedQuote(key, 20) : `#${id}`;
  const ids = current.slice(0, IDS_NAMED).map((item) => `#${item.id}`);
  if (current.length > IDS_NAMED) ids.push(`and ${current.length - IDS_NAMED} more`);
  const known = ids.join(", ") || "none yet";
  return `Not applied: no item has id ${named} (ids in the list: ${known}). Use an id from the list, or send the complete list in \`todos\` to add items.`;
}
