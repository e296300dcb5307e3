/** A tool call as the model sent it. `arguments` is the raw JSON text, kept verbatim. */
export type ToolCall = { id: string; name: string; arguments: string };

export type SystemMessage = { role: "system"; content: string };
export type UserMessage = { role: "user"; content: string };
export type AssistantMessage = { role: "assistant"; content: string; toolCalls?: ToolCall[] };
export type ToolMessage = { role: "tool"; content: string; toolCallId: string; name: string };

/** Provider-neutral, OpenAI-chat shaped message. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export function cloneMessages(messages: readonly Message[]): Message[] {
  return structuredClone(messages as Message[]);
}
