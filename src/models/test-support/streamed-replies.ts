import type { ServerResponse } from "node:http";
import { sendJson, sendSse, type Handler, type ReceivedRequest } from "./http-server.js";

type OpenAIToolCall = { id?: string; type?: string; function: { name: string; arguments: string } };
type OpenAICompletion = {
  id?: string;
  model?: string;
  choices: { message: { role?: string; content?: string | null; tool_calls?: OpenAIToolCall[] }; finish_reason?: string }[];
  usage?: unknown;
};

/**
 * Answers with an OpenAI chat completion, or, when the request asked for a stream (an agent's
 * requests do whenever the model can stream), with the same reply as chunks and a usage chunk.
 */
export function sendOpenAIReply(res: ServerResponse, req: ReceivedRequest, completion: OpenAICompletion): void {
  if (!req.body?.stream) return sendJson(res, 200, { object: "chat.completion", created: 1, ...completion });
  const head = { id: completion.id ?? "c", object: "chat.completion.chunk", created: 1, model: completion.model ?? "gpt-test" };
  const choice = completion.choices[0];
  const calls = choice?.message.tool_calls ?? [];
  const content = choice?.message.content;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ data: { ...head, choices: [{ index: 0, delta, finish_reason: finish }] } });
  sendSse(res, [
    chunk({ role: "assistant", ...(typeof content === "string" ? { content } : {}) }),
    ...(calls.length > 0 ? [chunk({ tool_calls: calls.map((call, index) => ({ index, type: "function", ...call })) })] : []),
    chunk({}, choice?.finish_reason ?? (calls.length > 0 ? "tool_calls" : "stop")),
    ...(completion.usage ? [{ data: { ...head, choices: [], usage: completion.usage } }] : []),
    { data: "[DONE]" },
  ]);
}

type AnthropicBlock = { type: string; text?: string; id?: string; name?: string; input?: unknown };
type AnthropicMessage = { content: AnthropicBlock[]; stop_reason?: string; usage: { output_tokens: number } & Record<string, unknown> } & Record<string, unknown>;

/** Answers with an Anthropic message, or, for a streamed request, with the same message as Anthropic's events. */
export function sendAnthropicReply(res: ServerResponse, req: ReceivedRequest, message: AnthropicMessage): void {
  if (!req.body?.stream) return sendJson(res, 200, message);
  const named = (data: Record<string, unknown>) => ({ event: String(data["type"]), data });
  const { content, stop_reason: stopReason, usage, ...rest } = message;
  sendSse(res, [
    named({ type: "message_start", message: { ...rest, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }),
    ...content.flatMap((block, index) => [
      named({ type: "content_block_start", index, content_block: block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} } }),
      named({
        type: "content_block_delta",
        index,
        delta: block.type === "text" ? { type: "text_delta", text: block.text ?? "" } : { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) },
      }),
      named({ type: "content_block_stop", index }),
    ]),
    named({ type: "message_delta", delta: { stop_reason: stopReason ?? "end_turn", stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }),
    named({ type: "message_stop" }),
  ]);
}

/** One assistant turn of a model behind a local OpenAI-compatible endpoint: text, tool calls (ids c1, c2, … unless given), or both. */
export type AssistantTurn = { content?: string | null; calls?: { name: string; arguments: unknown; id?: string }[] };

/** Answers with that turn, and a token of usage each way; a string is a turn of text alone. */
export function assistantTurn(turn: AssistantTurn | string): Handler {
  const { content = null, calls = [] } = typeof turn === "string" ? { content: turn } : turn;
  const toolCalls = calls.map((call, i) => ({
    id: call.id ?? `c${i + 1}`,
    type: "function",
    function: { name: call.name, arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments) },
  }));
  return (res, req) =>
    sendOpenAIReply(res, req, {
      id: "chatcmpl-1",
      model: "gpt-test",
      choices: [{ message: { role: "assistant", content, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }, finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
}
