import type { ModelRequest } from "../../core/model.js";

export type HintedSubtask = { name: string; state: "todo" | "in_progress" | "done" | "abandoned" };

/** One checklist line of the plan markdown: `- [x] name`, `- [ ] [WIP]name`, `- [ ] [Abandoned]name`, `- [ ] name`. */
const SUBTASK_LINE = /^- \[( |x)\] (\[WIP\]|\[Abandoned\])?(.*)$/;

/**
 * The subtasks of the plan the notebook's hint shows on this request, or null when it shows none. A
 * brain that decides from this, not from how many turns it took, picks up right after a crash even
 * when the checkpoint it resumed from is older than the plan.
 */
export function planInHint(req: ModelRequest): HintedSubtask[] | null {
  const hint = req.messages.findLast((m) => m.role === "user" && m.content.startsWith("<system-hint>"));
  if (!hint || !hint.content.includes("## Subtasks")) return null;
  // The checklist ends with its code fence; the in-progress subtask's details that follow repeat its line.
  const checklist = hint.content.slice(hint.content.indexOf("## Subtasks")).split("```")[0] ?? "";
  const lines = checklist.split("\n");
  return lines.flatMap((line) => {
    const match = SUBTASK_LINE.exec(line);
    if (!match) return [];
    const [, box, mark, name = ""] = match;
    const state = box === "x" ? "done" : mark === "[WIP]" ? "in_progress" : mark === "[Abandoned]" ? "abandoned" : "todo";
    return [{ name, state }];
  });
}
