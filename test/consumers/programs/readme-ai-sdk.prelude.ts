// What the README's AI SDK example takes as the user's own: a model (the AI SDK's MockLanguageModelV3
// here, planning then answering) and tools.
import { tool as preludeTool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z as preludeZ } from "zod";

const preludeUsage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
const model = new MockLanguageModelV3({
  doGenerate: async (options) =>
    options.prompt.some((message) => message.role === "tool")
      ? { content: [{ type: "text", text: "Triaged." }], finishReason: { unified: "stop", raw: undefined }, usage: preludeUsage, warnings: [] }
      : {
          content: [{ type: "tool-call", toolCallId: "w1", toolName: "write_todos", input: JSON.stringify({ todos: [{ content: "Read the logs", status: "in_progress" }] }) }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage: preludeUsage,
          warnings: [],
        },
});
const tools = { lookup: preludeTool({ description: "Look up.", inputSchema: preludeZ.object({ q: preludeZ.string() }), execute: async ({ q }) => `found ${q}` }) };
