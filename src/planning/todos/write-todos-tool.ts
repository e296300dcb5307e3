import { z } from "zod";
import { defineTool, ToolError, type Tool } from "../../core/tool.js";
import { TODO_STATUSES } from "./todo.js";
import type { TodoWrite } from "./todo-revision.js";
import { writeTodosDescription } from "./write-todos-description.js";

export const WRITE_TODOS = "write_todos";

/** The result of a write when the list is not recited (`recite: false`): a neutral acknowledgement. */
export const TODOS_SAVED = "Saved";

// The schema is sent with every request, so it carries types only: the description says what the
// forms mean, and `reviseTodos` answers an empty item, an id not in the list or a status not known
// with an error that names what is accepted.
const item = z.object({ content: z.string(), status: z.enum(TODO_STATUSES) });
const fullList = z.object({ todos: z.array(item) });
const listWithIds = z.object({
  todos: z.array(item).optional(),
  // {id: status}: the shortest change a model can write, and the one it writes most.
  updates: z.object({}).catchall(z.string()).optional(),
});

/** `apply` returns the refusal the model should see, or the result once the write is applied. */
export function writeTodosTool(opts: { ids: boolean; apply(write: TodoWrite): { refusal: string } | { result: string } }): Tool {
  const execute = (write: TodoWrite) => {
    const applied = opts.apply(write);
    if ("refusal" in applied) throw new ToolError(applied.refusal);
    return applied.result;
  };
  const description = writeTodosDescription(opts);
  return opts.ids
    ? defineTool({ name: WRITE_TODOS, description, parameters: listWithIds, execute })
    : defineTool({ name: WRITE_TODOS, description, parameters: fullList, execute });
}
