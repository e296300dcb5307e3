import type { AfterModelContext } from "../../core/plugin.js";
import { WRITE_TODOS } from "./write-todos-tool.js";

/**
 * Two write_todos calls in one turn change the same list, and neither can be said to come first.
 * Apply none and tell the model why, so it sends a single call next turn.
 */
export function refuseParallelWrites(ctx: AfterModelContext): void {
  const writes = ctx.toolCalls.filter((call) => call.name === WRITE_TODOS);
  if (writes.length < 2) return;
  const reason =
    `Not applied: this turn called write_todos ${writes.length} times, and none of those calls was applied. ` +
    "Calls in one turn change the same list, so they conflict. Send one write_todos call per turn, holding every change.";
  for (const call of writes) ctx.refuse(call.id, reason);
}
