/** The three states of a todo item. There is deliberately no "failed": a blocked item stays in progress. */
export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

/** One item of the list, as users of the plugin and listeners of `todos-updated` see it. */
export type Todo = { content: string; status: TodoStatus };

/** An item as the plugin keeps it: a stable id, and whether it has ever been shown in progress. */
export type StoredTodo = Todo & { id: number; started: boolean };

export function publicTodos(items: readonly StoredTodo[]): Todo[] {
  return items.map(({ content, status }) => ({ content, status }));
}
