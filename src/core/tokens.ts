import type { Message } from "./messages.js";

/**
 * A fast, dependency-free token estimate for budgets (context folding, history summaries). It is
 * deliberately rough: about four characters per token for Latin text, one per CJK character.
 * Benchmarks use a real tokenizer instead.
 */
export function estimateTokens(text: string): number {
  let wide = 0;
  for (const char of text) if (char.charCodeAt(0) > 0x2e7f) wide++;
  return Math.ceil((text.length - wide) / 4) + wide;
}

/**
 * Estimated tokens of messages as a provider would see them, with a small per-message overhead;
 * `countText` counts each text (the estimate above unless given, e.g. a model's own tokenizer).
 */
export function estimateMessageTokens(messages: readonly Message[], countText: (text: string) => number = estimateTokens): number {
  let total = 0;
  for (const message of messages) {
    total += 4 + countText(message.content);
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) total += 4 + countText(call.name) + countText(call.arguments);
    }
  }
  return total;
}
