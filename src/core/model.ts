import type { AssistantMessage, Message } from "./messages.js";

// The model contract. Adapters (src/models) translate it to real providers. It changes rarely and
// deliberately, with the package's major version: add optional members rather than reshaping these.

export type ToolSpec = { name: string; description: string; parameters: object /* JSON Schema */ };

export type ModelRequest = {
  messages: Message[];
  tools: ToolSpec[];
  signal?: AbortSignal;
  /**
   * Where the ephemeral tail starts: `messages[ephemeralFrom]` onwards (plugin hints, recitations)
   * are for this request only, everything before it is the stable prefix the next request repeats.
   * Adapters whose provider caches prompts mark their cache there. Absent: no tail is known.
   */
  ephemeralFrom?: number;
};

export type Usage = {
  /** The whole prompt, cached parts included. */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache (when the provider says). */
  cacheReadInputTokens?: number;
  /** Of `inputTokens`, those written to the provider's prompt cache (when the provider says). */
  cacheWriteInputTokens?: number;
};

export type ModelResponse = { message: AssistantMessage; usage?: Usage };

/**
 * One piece of a streamed response: text as it arrives, the start of each tool call (its arguments
 * come whole in the response), then the whole response once.
 */
export type ModelStreamPart =
  | { type: "text-delta"; text: string }
  | { type: "tool-call-start"; id: string; name: string }
  | { type: "response"; response: ModelResponse };

export interface ChatModel {
  readonly id: string;
  generate(req: ModelRequest): Promise<ModelResponse>;
  /** Optional: text deltas while the model writes, ending with exactly one `response` part. */
  stream?(req: ModelRequest): AsyncIterable<ModelStreamPart>;
}

export function addUsage(total: Usage, more: Usage | undefined): Usage {
  if (!more) return total;
  const sum: Usage = { inputTokens: total.inputTokens + more.inputTokens, outputTokens: total.outputTokens + more.outputTokens };
  // The cache counts appear once some provider has reported them, and then add up.
  for (const key of ["cacheReadInputTokens", "cacheWriteInputTokens"] as const) {
    if (total[key] !== undefined || more[key] !== undefined) sum[key] = (total[key] ?? 0) + (more[key] ?? 0);
  }
  return sum;
}
