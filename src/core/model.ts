import type { AssistantMessage, Message } from "./messages.js";

/**
 * The model contract, version 1. Adapters (src/models) translate it to real providers.
 * It changes rarely and deliberately; add optional members rather than reshaping these.
 */
export const MODEL_CONTRACT_VERSION = 1;

export type ToolSpec = { name: string; description: string; parameters: object /* JSON Schema */ };

export type ModelRequest = { messages: Message[]; tools: ToolSpec[]; signal?: AbortSignal };

export type Usage = { inputTokens: number; outputTokens: number };

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
  return { inputTokens: total.inputTokens + more.inputTokens, outputTokens: total.outputTokens + more.outputTokens };
}
