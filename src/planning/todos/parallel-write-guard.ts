import type { AfterModelContext } from "../../core/plugin.js";
import { WRITE_TODOS } from "./write-todos-tool.js";

/**
 * Each write_todos call replaces the whole list, so two in one turn race and neither can be said
 * to win. Apply none and tell the model why, so it sends a single call next turn.
 */
export function refuseParallelWrites(ctx: AfterModelContext): void {
  const writes = ctx.toolCalls.filter((call) => call.name === WRITE_TODOS);
  if (writes.length < 2) return;
  const reason =
    `Not applied: this turn called write_todos ${writes.length} times, and none of those calls was applied. ` +
    "Each call replaces the whole list, so parallel calls conflict. Send one write_todos call per turn, holding the complete list.";
  for (const call of writes) ctx.refuse(call.id, reason);
}
