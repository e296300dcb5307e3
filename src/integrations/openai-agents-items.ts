import type { AgentInputItem } from "@openai/agents";
import type { Message, ToolCall } from "../core/messages.js";

/** The text of an item's content, whether a string or a list of text parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => (part && typeof part === "object" && "text" in part && typeof part.text === "string" ? part.text : ""))
    .join("");
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (output && typeof output === "object" && "text" in output && typeof output.text === "string") return output.text;
  return contentText(output);
}

/**
 * The OpenAI Agents SDK's run items as Stepwise messages: function calls join the assistant message
 * before them (as one chat turn), results become tool messages; reasoning and hosted-tool items,
 * which have no Stepwise form, are left out.
 */
export function fromAgentItems(items: readonly AgentInputItem[]): Message[] {
  const messages: Message[] = [];
  const callNames = new Map<string, string>();
  for (const item of items) {
    const type = "type" in item ? item.type : "message";
    if (type === "function_call" && "callId" in item && "arguments" in item && "name" in item) {
      const call: ToolCall = { id: item.callId, name: item.name, arguments: item.arguments };
      callNames.set(call.id, call.name);
      const last = messages.at(-1);
      if (last?.role === "assistant") last.toolCalls = [...(last.toolCalls ?? []), call];
      else messages.push({ role: "assistant", content: "", toolCalls: [call] });
    } else if (type === "function_call_result" && "callId" in item && "output" in item) {
      messages.push({ role: "tool", content: outputText(item.output), toolCallId: item.callId, name: callNames.get(item.callId) ?? "" });
    } else if (type === "message" && "role" in item && "content" in item) {
      const text = contentText(item.content);
      if (item.role === "assistant") messages.push({ role: "assistant", content: text });
      else if (item.role === "system") messages.push({ role: "system", content: text });
      else if (item.role === "user") messages.push({ role: "user", content: text });
    }
  }
  return messages;
}

/** A tail message (a plan hint, a todo recitation) as an input item for one model call. */
export function toAgentInputItem(message: Message): AgentInputItem {
  return message.role === "system" ? { role: "system", content: message.content } : { role: "user", content: message.content };
}
