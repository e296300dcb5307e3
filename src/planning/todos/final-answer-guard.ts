import type { AfterModelContext } from "../../core/plugin.js";
import { WRITE_TODOS } from "./write-todos-tool.js";

export const FINAL_ANSWER_NOTE =
  "Your todo list is up to date, but the user has not received an answer yet. Reply now with your answer to the user, in a message without tool calls.";

/**
 * A model that ticks its last item often stops there: the loop ends on a turn without tool calls,
 * and the user sees nothing. When a run would end with an empty answer right after write_todos,
 * ask once more for the answer (the runtime honours this once per run).
 */
export function askForMissingAnswer(ctx: AfterModelContext): void {
  if (ctx.toolCalls.length > 0 || ctx.message.content.trim() !== "") return;
  // memory ends with this turn's message; the assistant turn before it decides.
  const previous = ctx.memory.slice(0, -1).findLast((message) => message.role === "assistant");
  if (previous?.role !== "assistant" || !previous.toolCalls?.some((call) => call.name === WRITE_TODOS)) return;
  ctx.continueWith(FINAL_ANSWER_NOTE);
}
