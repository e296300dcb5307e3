import type { AgentEventInit } from "../../core/events.js";
import { cloneMessages, type AssistantMessage, type Message } from "../../core/messages.js";
import type { ChatModel, ModelRequest, ModelResponse, ToolSpec } from "../../core/model.js";

/** Where a workflow's own model calls are reported, as an agent reports its calls. */
export interface ReplyEvents {
  emit(event: AgentEventInit): void;
  /** The number of this model call within the workflow's run. */
  nextModelStep(): number;
}

export type ReplyOptions = {
  tools?: ToolSpec[];
  signal?: AbortSignal;
  /** Receives the text as it arrives: delta by delta when the model streams, else all at once. */
  onText?: (delta: string) => void;
  /** Reports the call (model-start, text-delta, tool-call-start, model-end with usage and latency). */
  events?: ReplyEvents;
};

/** One model call for a workflow's planner, joiner or solver: streamed when the model can, generated otherwise. */
export async function requestReply(model: ChatModel, messages: Message[], opts: ReplyOptions = {}): Promise<AssistantMessage> {
  const request: ModelRequest = { messages, tools: opts.tools ?? [], ...(opts.signal ? { signal: opts.signal } : {}) };
  const step = opts.events?.nextModelStep() ?? 0;
  // Each of a workflow's calls is a fresh conversation, logged whole.
  const logged = { kept: 0, added: cloneMessages(messages) };
  opts.events?.emit({ type: "model-start", step, messageCount: messages.length, toolCount: request.tools.length, model: model.id, request: logged });
  const started = Date.now();
  const response = await respond(model, request, step, opts);
  const message = { ...response.message, content: typeof response.message.content === "string" ? response.message.content : "" };
  const usage = response.usage ? { usage: response.usage } : {};
  opts.events?.emit({ type: "model-end", step, message: structuredClone(message), ...usage, durationMs: Date.now() - started, model: model.id });
  return message;
}

async function respond(model: ChatModel, request: ModelRequest, step: number, opts: ReplyOptions): Promise<ModelResponse> {
  if (!model.stream) {
    const response = await model.generate(request);
    if (typeof response.message.content === "string" && response.message.content) opts.onText?.(response.message.content);
    return response;
  }
  for await (const part of model.stream(request)) {
    if (part.type === "text-delta") {
      opts.events?.emit({ type: "text-delta", step, text: part.text });
      opts.onText?.(part.text);
    } else if (part.type === "tool-call-start") {
      opts.events?.emit({ type: "tool-call-start", step, callId: part.id, name: part.name });
    } else return part.response;
  }
  throw new Error(`Model "${model.id}" ended its stream without a response part.`);
}
