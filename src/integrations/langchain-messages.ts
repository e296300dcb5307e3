import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { AssistantMessage, Message, ToolCall } from "../core/messages.js";

/** A LangChain message's text, whether its content is a string or a list of blocks. */
function textOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : message.text;
}

/** LangChain keeps tool arguments parsed; Stepwise keeps the JSON text the model sent. */
export function toolCallsOf(message: AIMessage): ToolCall[] {
  return (message.tool_calls ?? []).map((call) => ({ id: call.id ?? "", name: call.name, arguments: JSON.stringify(call.args ?? {}) }));
}

export function fromLangChainMessage(message: BaseMessage): Message | undefined {
  if (AIMessage.isInstance(message)) return fromAIMessage(message);
  if (ToolMessage.isInstance(message)) {
    return { role: "tool", content: textOf(message), toolCallId: message.tool_call_id, name: message.name ?? "" };
  }
  if (SystemMessage.isInstance(message)) return { role: "system", content: textOf(message) };
  if (HumanMessage.isInstance(message)) return { role: "user", content: textOf(message) };
  return undefined; // other kinds (function, remove, chat with a custom role) have no Stepwise form
}

export function fromAIMessage(message: AIMessage): AssistantMessage {
  const toolCalls = toolCallsOf(message);
  return toolCalls.length > 0 ? { role: "assistant", content: textOf(message), toolCalls } : { role: "assistant", content: textOf(message) };
}

export function fromLangChainMessages(messages: readonly BaseMessage[]): Message[] {
  return messages.flatMap((message) => fromLangChainMessage(message) ?? []);
}

/** Arguments as LangChain keeps them: parsed, and an object (garbled JSON becomes {}, as the AI SDK adapter does). */
function parsedArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function toLangChainMessage(message: Message): BaseMessage {
  switch (message.role) {
    case "system":
      return new SystemMessage(message.content);
    case "user":
      return new HumanMessage(message.content);
    case "assistant":
      return new AIMessage({
        content: message.content,
        tool_calls: (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.name,
          args: parsedArguments(call.arguments),
          type: "tool_call" as const,
        })),
      });
    case "tool":
      return new ToolMessage({ content: message.content, tool_call_id: message.toolCallId, name: message.name });
  }
}
