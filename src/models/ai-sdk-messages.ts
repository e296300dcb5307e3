// Our messages and the AI SDK's, both ways: one converter for the AI SDK model adapter and the AI SDK planning integration.
import type { ModelMessage, ToolResultPart } from "ai";
import type { Message, ToolCall } from "../core/messages.js";
import { argumentsObject } from "./tool-arguments.js";

/** One of our messages as an AI SDK message: what the AI SDK adapter sends, and what a plugin adds to an AI SDK request. */
export function toModelMessage(message: Message): ModelMessage {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId,
            toolName: message.name,
            output: { type: "text", value: message.content },
          },
        ],
      };
    case "assistant": {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: [
          ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
          ...calls.map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: argumentsObject(call.arguments),
          })),
        ],
      };
    }
  }
}

/**
 * The AI SDK's messages in our shape, for plugin hooks that read the conversation. Only text is
 * kept: images and files become nothing, reasoning is dropped, a tool result's output becomes text.
 */
export function fromModelMessages(messages: readonly ModelMessage[]): Message[] {
  return messages.flatMap((message): Message[] => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }];
      case "user":
        return [{ role: "user", content: typeof message.content === "string" ? message.content : textOf(message.content) }];
      case "assistant": {
        if (typeof message.content === "string") return [{ role: "assistant", content: message.content }];
        const toolCalls: ToolCall[] = message.content.flatMap((part) =>
          part.type === "tool-call" ? [{ id: part.toolCallId, name: part.toolName, arguments: JSON.stringify(part.input ?? {}) }] : [],
        );
        const content = textOf(message.content);
        return [toolCalls.length > 0 ? { role: "assistant", content, toolCalls } : { role: "assistant", content }];
      }
      case "tool":
        return message.content.flatMap((part): Message[] =>
          part.type === "tool-result"
            ? [{ role: "tool", content: outputText(part.output), toolCallId: part.toolCallId, name: part.toolName }]
            : [],
        );
    }
  });
}

function textOf(parts: readonly { type: string; text?: string }[]): string {
  return parts.flatMap((part) => (part.type === "text" && part.text !== undefined ? [part.text] : [])).join("");
}

function outputText(output: ToolResultPart["output"]): string {
  switch (output.type) {
    case "text":
    case "error-text":
      return output.value;
    case "json":
    case "error-json":
      return JSON.stringify(output.value);
    case "execution-denied":
      return `Not run: the user denied this call${output.reason ? `: ${output.reason}` : "."}`;
    case "content":
      return textOf(output.value as { type: string; text?: string }[]);
  }
}
