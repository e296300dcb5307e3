import { describe, expect, it } from "vitest";
import type { Message } from "../core/messages.js";
import { fromModelMessages, toModelMessage } from "./ai-sdk-messages.js";

describe("AI SDK message conversion", () => {
  it("brings a conversation back unchanged after a trip through the AI SDK's messages", () => {
    const conversation: Message[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Oslo?" },
      { role: "assistant", content: "Checking.", toolCalls: [{ id: "c1", name: "weather", arguments: '{"city":"Oslo"}' }] },
      { role: "tool", content: "sunny", toolCallId: "c1", name: "weather" },
      { role: "assistant", content: "Sunny." },
    ];
    expect(fromModelMessages(conversation.map(toModelMessage))).toEqual(conversation);
  });

  it("sends garbled tool arguments as an empty object: the tool result already told the model what was wrong", () => {
    const sent = toModelMessage({ role: "assistant", content: "", toolCalls: [{ id: "c1", name: "weather", arguments: '{"city": ' }] });
    expect(sent).toEqual({ role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: {} }] });
  });

  it("sends arguments nested too deep to serialize as an empty object, so the next request can be sent", () => {
    const deep = '{"city":' + "[".repeat(100_000) + "]".repeat(100_000) + "}";
    const sent = toModelMessage({ role: "assistant", content: "", toolCalls: [{ id: "c1", name: "weather", arguments: deep }] });
    expect(JSON.stringify(sent)).toBe(JSON.stringify({ role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "weather", input: {} }] }));
  });
});
