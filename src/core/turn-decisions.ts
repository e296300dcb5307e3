import type { AssistantMessage, ToolCall } from "./messages.js";
import type { Plugin, TurnContext } from "./plugin.js";

/** What the plugins decided about one model turn. */
export type TurnDecisions = {
  /** Calls not to run, by id, with the error text the model must see instead. */
  refusals: Map<string, string>;
  /** Whether some call's name or arguments were rewritten (in the `calls` given). */
  rewritten: boolean;
  /** Notes for one more model turn, asked for although this turn called no tool. */
  notes: string[];
};

/**
 * Lets each plugin's `afterModel` refuse or rewrite the turn's `calls` (rewritten in place) or ask
 * for one more turn: one rule for the Stepwise agent and for the framework adapters alike.
 * `continued` holds the plugins that already had their one `continueWith` of the run.
 */
export async function decideTurn(
  plugins: readonly Plugin[],
  ctx: TurnContext,
  message: AssistantMessage,
  calls: ToolCall[],
  continued: Set<Plugin>,
): Promise<TurnDecisions> {
  const decisions: TurnDecisions = { refusals: new Map(), rewritten: false, notes: [] };
  for (const plugin of plugins) {
    if (!plugin.afterModel) continue;
    await plugin.afterModel({
      ...ctx,
      message,
      toolCalls: calls,
      refuse: (callId, reason) => {
        if (!calls.some((c) => c.id === callId)) throw new Error(`refuse: no tool call with id "${callId}" in this turn.`);
        decisions.refusals.set(callId, reason);
      },
      rewrite: (callId, change) => {
        const call = calls.find((c) => c.id === callId);
        if (!call) throw new Error(`rewrite: no tool call with id "${callId}" in this turn.`);
        if (change.name !== undefined) call.name = change.name;
        if (change.arguments !== undefined) call.arguments = change.arguments;
        decisions.rewritten = true;
      },
      continueWith: (note) => {
        // A turn with tool calls continues anyway; the once-per-run allowance is kept for a real stop.
        if (calls.length > 0 || continued.has(plugin)) return;
        continued.add(plugin);
        decisions.notes.push(note);
      },
    });
  }
  return decisions;
}
