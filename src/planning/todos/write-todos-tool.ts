import { z } from "zod";
import { defineTool, ToolError, type Tool } from "../../core/tool.js";
import { TODO_STATUSES } from "./todo.js";
import type { TodoWrite } from "./todo-revision.js";
import { writeTodosDescription } from "./write-todos-description.js";

export const WRITE_TODOS = "write_todos";

/**
 * The tool's result: a neutral acknowledgement. It does not restate the list (the recitation shows
 * it), because an echoed all-completed list reads to a model like the end of the job.
 */
export const TODOS_SAVED = "Saved.";

const status = z.enum(TODO_STATUSES);
const content = z.string().trim().min(1);
const item = z.object({ content, status });
const id = z.number().int().positive();

// The description says the list is complete and ordered; the schema does not repeat it on every request.
const fullList = z.object({ todos: z.array(item) });
const listWithIds = z.object({
  todos: z.array(item.extend({ id: id.optional() })).optional(),
  updates: z.array(z.object({ id, content: content.optional(), status: status.optional() })).optional(),
});

/** `apply` returns the refusal the model should see, or null once the write is applied. */
export function writeTodosTool(opts: { ids: boolean; recited: boolean; apply(write: TodoWrite): string | null }): Tool {
  const execute = (write: TodoWrite) => {
    const refusal = opts.apply(write);
    if (refusal !== null) throw new ToolError(refusal);
    return TODOS_SAVED;
  };
  const description = writeTodosDescription(opts);
  return opts.ids
    ? defineTool({ name: WRITE_TODOS, description, parameters: listWithIds, execute })
    : defineTool({ name: WRITE_TODOS, description, parameters: fullList, execute });
}
