import type { ModelRequest } from "../../core/model.js";

export type RecitedTodo = { id: string; content: string; status: "pending" | "in_progress" | "completed" };

const STATUS_LINE = /^(pending|in_progress|completed):$/;
const ITEM_LINE = /^#(\d+) (.*)$/;

/**
 * The todo list the recitation at the tail of this request shows, with the ids `updates` takes, or
 * null before the first write. A brain that decides from this, as a model reads it, picks up right
 * after a resume and never needs to count its own turns.
 */
export function todosInRecitation(req: ModelRequest): RecitedTodo[] | null {
  const tail = req.messages.at(-1);
  if (tail?.role !== "user" || !tail.content.startsWith("<todo-list>")) return null;
  let status: RecitedTodo["status"] = "pending";
  return tail.content.split("\n").flatMap((line) => {
    const heading = STATUS_LINE.exec(line);
    if (heading) status = heading[1] as RecitedTodo["status"];
    const item = ITEM_LINE.exec(line);
    return item ? [{ id: item[1] ?? "", content: item[2] ?? "", status }] : [];
  });
}
