import type { Message, ToolCall } from "../../core/messages.js";

/**
 * A complete tool turn in memory: an assistant message with tool calls and every one of its results
 * right after it. Folding removes or rewrites whole turns only, so the history stays valid for every
 * provider (each tool message follows the assistant message that called it).
 */
export type ToolTurn = {
  /** The id of the turn's first tool call: stable across saves and memory rewrites. */
  key: string;
  /** Index of the assistant message in memory. */
  start: number;
  /** Index just past the turn's last tool message. */
  end: number;
  calls: ToolCall[];
};

/** The complete tool turns of `memory`, in order. A turn whose results are missing is left out. */
export function findToolTurns(memory: readonly Message[]): ToolTurn[] {
  const turns: ToolTurn[] = [];
  for (let i = 0; i < memory.length; i++) {
    const message = memory[i];
    const calls = message?.role === "assistant" ? message.toolCalls : undefined;
    const first = calls?.[0];
    if (!calls || !first) continue;
    const waiting = new Set(calls.map((call) => call.id));
    let end = i + 1;
    for (let next = memory[end]; next?.role === "tool" && waiting.delete(next.toolCallId); next = memory[end]) end++;
    if (waiting.size === 0) turns.push({ key: first.id, start: i, end, calls });
    i = end - 1;
  }
  return turns;
}
