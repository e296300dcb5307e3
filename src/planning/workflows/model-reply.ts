import type { AssistantMessage, Message } from "../../core/messages.js";
import type { ChatModel, ToolSpec } from "../../core/model.js";

export type ReplyOptions = {
  tools?: ToolSpec[];
  signal?: AbortSignal;
  /** Receives the text as it arrives: delta by delta when the model streams, else all at once. */
  onText?: (delta: string) => void;
};

/** One model call for a workflow's planner, joiner or solver: streamed when the model can, generated otherwise. */
export async function requestReply(model: ChatModel, messages: Message[], opts: ReplyOptions = {}): Promise<AssistantMessage> {
  const request = { messages, tools: opts.tools ?? [], ...(opts.signal ? { signal: opts.signal } : {}) };
  if (!model.stream) {
    const { message } = await model.generate(request);
    const content = typeof message.content === "string" ? message.content : "";
    if (content) opts.onText?.(content);
    return { ...message, content };
  }
  for await (const part of model.stream(request)) {
    if (part.type === "text-delta") opts.onText?.(part.text);
    else if (part.type === "response") {
      const { message } = part.response;
      return { ...message, content: typeof message.content === "string" ? message.content : "" };
    }
  }
  throw new Error(`Model "${model.id}" ended its stream without a response part.`);
}
