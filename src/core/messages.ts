/** A tool call as the model sent it. `arguments` is the raw JSON text, kept verbatim. */
export type ToolCall = { id: string; name: string; arguments: string };

export type SystemMessage = { role: "system"; content: string };
export type UserMessage = { role: "user"; content: string };
export type AssistantMessage = { role: "assistant"; content: string; toolCalls?: ToolCall[] };
export type ToolMessage = { role: "tool"; content: string; toolCallId: string; name: string };

/** Provider-neutral, OpenAI-chat shaped message. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/**
 * A deep copy of `messages`, made field by field: every field of a message is a string except an
 * assistant's tool calls, whose fields are strings too. structuredClone made the same copy several
 * times slower, and copies of the whole history are made at every model call.
 */
export function cloneMessages(messages: readonly Message[]): Message[] {
  return messages.map(cloneMessage);
}

function cloneMessage(message: Message): Message {
  if (message.role !== "assistant" || message.toolCalls === undefined) return { ...message };
  return { ...message, toolCalls: message.toolCalls.map((call) => ({ ...call })) };
}
