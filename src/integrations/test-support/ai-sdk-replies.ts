import type { LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** What the AI SDK's MockLanguageModelV3 answers: the parts given, finishing for tool calls if there are any. */
export function reply(content: LanguageModelV3Content[]): LanguageModelV3GenerateResult {
  const calls = content.some((part) => part.type === "tool-call");
  return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage: USAGE, warnings: [] };
}

export function callTool(toolCallId: string, toolName: string, input: unknown): LanguageModelV3Content {
  return { type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) };
}
