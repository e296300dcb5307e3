import type { Message } from "../../core/messages.js";
import { PluginHosts, type Plugin } from "../../core/plugin.js";
import { askForMissingAnswer } from "./final-answer-guard.js";
import { refuseParallelWrites } from "./parallel-write-guard.js";
import { progressLine, reciteTodos, savedIds, tokensSinceList } from "./recitation.js";
import { publicTodos, TODO_STATUSES, type StoredTodo, type Todo } from "./todo.js";
import { reviseTodos, type TodoWrite } from "./todo-revision.js";
import { todoUnitEvents } from "./todo-units.js";
import { TODO_INSTRUCTIONS } from "./write-todos-description.js";
import { TODOS_SAVED, writeTodosTool } from "./write-todos-tool.js";

declare module "../../core/events.js" {
  interface AgentEventMap {
    /** The todo list after a write_todos call was applied. */
    "todos-updated": { todos: Todo[] };
  }
}

export interface TodoListOptions {
  /**
   * Keep the current list in front of the model (default true): a full copy of it is never further
   * than `reciteAfterTokens` from the end of a request. A write's result recites the list when its
   * last copy lies more than halfway back (otherwise it names the item now in progress and how many are
   * done), and a request whose last copy lies further back than that gets the list as its last message.
   */
  recite?: boolean;
  /**
   * How far (in estimated tokens) the last full copy of the list may lie behind the end of a request
   * (default 4,000: the last few turns). 0 recites it at the tail of every request instead, where a
   * prompt cache cannot reuse it.
   */
  reciteAfterTokens?: number;
  /** Refuse a write that completes an item never shown in progress (default false). */
  checkTransitions?: boolean;
  /**
   * Show items with stable ids and accept `updates`, new statuses by id, beside the complete list, so
   * a model sends only what changed (default: on when the list is recited, where the model reads the ids).
   */
  ids?: boolean;
}

export type TodoList = Plugin & { readonly todos: Todo[] };

export const TODO_STATE_VERSION = 1;

type TodoState = { version: number; todos: StoredTodo[]; nextId: number };

/**
 * A `write_todos` tool whose list stays in front of the model: the reference's dynamic todo list.
 * Items in progress are announced as units of work (`unit-start` / `unit-end`) for context folding.
 */
export function todoList(opts: TodoListOptions = {}): TodoList {
  const recite = opts.recite ?? true;
  const ids = opts.ids ?? recite;
  const reciteAfterTokens = opts.reciteAfterTokens ?? DEFAULT_RECITE_AFTER_TOKENS;
  if (!(reciteAfterTokens >= 0)) throw new Error(`todoList: reciteAfterTokens must be 0 or more, got ${String(opts.reciteAfterTokens)}.`);
  const hosts = new PluginHosts();
  let items: StoredTodo[] = [];
  let nextId = 1;
  // How far back the last full copy of the list lay in the latest request.
  let copyDistance = Number.POSITIVE_INFINITY;

  const tool = writeTodosTool({
    ids,
    apply(write) {
      const revision = reviseTodos(items, write, { nextId, checkTransitions: opts.checkTransitions ?? false });
      if ("error" in revision) return { refusal: revision.error };
      const before = items;
      ({ items, nextId } = revision);
      hosts.emit({ type: "todos-updated", todos: publicTodos(items) });
      for (const event of todoUnitEvents(before, items)) hosts.emit(event);
      return { result: writeResult(write, items, { recite, ids, reciteInResult: reciteAfterTokens > 0 && copyDistance > reciteAfterTokens / 2 }) };
    },
  });

  return {
    name: "todos",
    get todos() {
      return publicTodos(items);
    },
    tools: () => [tool],
    instructions: () => TODO_INSTRUCTIONS,
    attach: (host) => hosts.add(host),
    beforeModel(ctx): Message[] | void {
      if (!recite || items.length === 0) return;
      copyDistance = tokensSinceList(ctx.messages);
      if (reciteAfterTokens > 0 && copyDistance <= reciteAfterTokens) return;
      return [{ role: "user", content: reciteTodos(items, { ids }) }];
    },
    afterModel(ctx) {
      refuseParallelWrites(ctx);
      askForMissingAnswer(ctx);
    },
    saveState: (): TodoState => ({ version: TODO_STATE_VERSION, todos: structuredClone(items), nextId }),
    loadState(state) {
      const saved = parseState(state);
      items = saved.todos;
      nextId = saved.nextId;
    },
  };
}

/** About the last few turns: far enough back that the list is still near the end of any request. */
const DEFAULT_RECITE_AFTER_TOKENS = 4_000;

/**
 * What a write answers. A complete list (`todos`) was just written out by the model itself, so the
 * result gives only the ids it got, in list order. A change of statuses recites the list when
 * `reciteInResult` (the copy later requests keep in their cached prefix), and otherwise names the item
 * now in progress and how far along the list is. A list with every item completed is always recited.
 */
function writeResult(write: TodoWrite, items: readonly StoredTodo[], opts: { recite: boolean; ids: boolean; reciteInResult: boolean }): string {
  if (!opts.recite || items.length === 0) return TODOS_SAVED;
  // A ticked list reads like a finished job: the recitation says the answer is still owed.
  if (items.every((item) => item.status === "completed")) return reciteTodos(items, opts);
  if (write.todos !== undefined) return opts.ids ? savedIds(items) : TODOS_SAVED;
  return opts.reciteInResult ? reciteTodos(items, opts) : progressLine(items, opts);
}

function parseState(state: unknown): TodoState {
  const s = (typeof state === "object" && state !== null ? state : {}) as Partial<TodoState>;
  const valid =
    typeof s.version === "number" &&
    Number.isInteger(s.nextId) &&
    Array.isArray(s.todos) &&
    s.todos.every(
      (item: Partial<StoredTodo>) =>
        Number.isInteger(item.id) &&
        typeof item.content === "string" &&
        TODO_STATUSES.includes(item.status as Todo["status"]) &&
        typeof item.started === "boolean",
    );
  if (!valid) throw new Error("todoList.loadState expects what todoList saved: { version, todos: [{ id, content, status, started }], nextId }.");
  if ((s.version as number) > TODO_STATE_VERSION) {
    throw new Error(`This todo list state has version ${String(s.version)}; this Stepwise reads up to ${TODO_STATE_VERSION}.`);
  }
  return s as TodoState;
}
