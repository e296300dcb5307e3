import type { Message } from "../../core/messages.js";
import { PluginHosts, type Plugin } from "../../core/plugin.js";
import { askForMissingAnswer } from "./final-answer-guard.js";
import { refuseParallelWrites } from "./parallel-write-guard.js";
import { reciteTodos } from "./recitation.js";
import { publicTodos, TODO_STATUSES, type StoredTodo, type Todo } from "./todo.js";
import { reviseTodos } from "./todo-revision.js";
import { todoUnitEvents } from "./todo-units.js";
import { writeTodosTool } from "./write-todos-tool.js";

declare module "../../core/events.js" {
  interface AgentEventMap {
    /** The todo list after a write_todos call was applied. */
    "todos-updated": { todos: Todo[] };
  }
}

export interface TodoListOptions {
  /** Append the current list as the last message of every model request (default true). */
  recite?: boolean;
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
  const hosts = new PluginHosts();
  let items: StoredTodo[] = [];
  let nextId = 1;

  const tool = writeTodosTool({
    ids,
    apply(write) {
      const revision = reviseTodos(items, write, { nextId, checkTransitions: opts.checkTransitions ?? false });
      if ("error" in revision) return revision.error;
      const before = items;
      ({ items, nextId } = revision);
      hosts.emit({ type: "todos-updated", todos: publicTodos(items) });
      for (const event of todoUnitEvents(before, items)) hosts.emit(event);
      return null;
    },
  });

  return {
    name: "todos",
    get todos() {
      return publicTodos(items);
    },
    tools: () => [tool],
    attach: (host) => hosts.add(host),
    beforeModel(): Message[] | void {
      if (recite && items.length > 0) return [{ role: "user", content: reciteTodos(items, { ids }) }];
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
