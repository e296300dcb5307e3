import type { Usage } from "../core/model.js";

/** US dollars per million tokens. Cached reads and cache writes fall back to `input` when a provider has no such price. */
export type ModelPrice = { input: number; output: number; cacheRead?: number; cacheWrite?: number };

/**
 * List prices of well-known models, in US dollars per million tokens, as published by their
 * providers in 2026. They go stale: figures computed from them are estimates, and callers that
 * know their own prices pass them instead. Keys are model names without the provider; a model id
 * matches the longest key it starts with, so dated snapshots (`gpt-4o-2024-08-06`) find their family.
 */
export const KNOWN_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-4o": { input: 2.5, cacheRead: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cacheRead: 0.075, output: 0.6 },
  "gpt-4.1": { input: 2, cacheRead: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cacheRead: 0.1, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, cacheRead: 0.025, output: 0.4 },
  "gpt-5": { input: 1.25, cacheRead: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cacheRead: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cacheRead: 0.005, output: 0.4 },
  o3: { input: 2, cacheRead: 0.5, output: 8 },
  "o4-mini": { input: 1.1, cacheRead: 0.275, output: 4.4 },
  "claude-opus-4": { input: 15, cacheRead: 1.5, cacheWrite: 18.75, output: 75 },
  "claude-sonnet-4": { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  "claude-3-7-sonnet": { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  "claude-3-5-haiku": { input: 0.8, cacheRead: 0.08, cacheWrite: 1, output: 4 },
  "claude-haiku-4": { input: 1, cacheRead: 0.1, cacheWrite: 1.25, output: 5 },
  "deepseek-chat": { input: 0.27, cacheRead: 0.07, output: 1.1 },
  "deepseek-reasoner": { input: 0.55, cacheRead: 0.14, output: 2.19 },
};

/** The price of a model id (`openai:gpt-4o`, `anthropic:claude-sonnet-4-5`, or a bare name), or undefined when unknown. */
export function priceOf(modelId: string, prices: Readonly<Record<string, ModelPrice>> = KNOWN_MODEL_PRICES): ModelPrice | undefined {
  const name = modelId.slice(modelId.indexOf(":") + 1).toLowerCase();
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    const family = key.toLowerCase();
    if ((name === family || name.startsWith(`${family}-`)) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : prices[best];
}

/**
 * Estimated cost of one usage in US dollars: uncached input at the input price, cached reads and
 * cache writes at theirs, output at the output price. Undefined when the model's price is unknown,
 * so a caller never shows a made-up zero.
 */
export function estimateCostUsd(
  modelId: string,
  usage: Usage,
  prices: Readonly<Record<string, ModelPrice>> = KNOWN_MODEL_PRICES,
): number | undefined {
  const price = priceOf(modelId, prices);
  if (!price) return undefined;
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - cacheRead - cacheWrite);
  const dollars =
    uncached * price.input +
    cacheRead * (price.cacheRead ?? price.input) +
    cacheWrite * (price.cacheWrite ?? price.input) +
    usage.outputTokens * price.output;
  return dollars / 1_000_000;
}
