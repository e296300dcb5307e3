import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import type {
  CacheControlEphemeral,
  ContentBlockParam,
  Message as AnthropicMessage,
  MessageCreateParamsNonStreaming,
  MessageParam,
  TextBlockParam,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type { AssistantMessage, Message, ToolCall } from "../core/messages.js";
import type { ChatModel, ModelRequest, ModelResponse, ModelStreamPart, ToolSpec, Usage } from "../core/model.js";
import {
  describeChain,
  httpFailure,
  IncompleteStreamError,
  retryingModel,
  retrySettings,
  type Attempt,
  type Failure,
  type RetryOptions,
  type RetryTarget,
} from "./retry.js";
import { argumentsObject } from "./tool-arguments.js";

export interface AnthropicModelOptions extends RetryOptions {
  model: string;
  /** Defaults to ANTHROPIC_API_KEY. */
  apiKey?: string | undefined;
  baseURL?: string | undefined;
  /** Anthropic requires a cap on the answer's length (default 4096). */
  maxTokens?: number | undefined;
  temperature?: number | undefined;
  /**
   * Mark prompt-cache breakpoints (default true): on the tools, the system prompt and, when the
   * request says where its ephemeral tail starts (`ephemeralFrom`, as the agent does), on the last
   * message before it, so each turn reads the stable prefix from the cache. A request without it
   * (a one-off prompt) caches only tools and system: a cache write costs more than a plain read.
   */
  promptCache?: boolean | undefined;
}

const CACHE_BREAKPOINT: CacheControlEphemeral = { type: "ephemeral" };

/** A ChatModel for Anthropic's Messages API. */
export function anthropicModel(opts: AnthropicModelOptions): ChatModel & {
  stream(req: ModelRequest): AsyncIterable<ModelStreamPart>;
} {
  const apiKey = opts.apiKey ?? process.env["ANTHROPIC_API_KEY"];
  if (!apiKey) throw new Error(`anthropicModel("${opts.model}") needs an API key: pass apiKey or set ANTHROPIC_API_KEY.`);
  const settings = retrySettings(opts);
  const client = new Anthropic({
    apiKey,
    ...(opts.baseURL !== undefined ? { baseURL: opts.baseURL } : {}),
    maxRetries: 0,
    timeout: settings.timeoutMs,
  });
  const target: RetryTarget = { provider: "anthropic", model: opts.model, settings, secrets: [apiKey], describe: describeAnthropicError };

  const promptCache = opts.promptCache ?? true;

  function body(req: ModelRequest): MessageCreateParamsNonStreaming {
    const { system, messages } = toWireConversation(req.messages, promptCache ? req.ephemeralFrom : undefined);
    const tools = req.tools.map(toWireTool);
    const lastTool = tools.at(-1);
    if (promptCache && lastTool) lastTool.cache_control = CACHE_BREAKPOINT;
    return {
      model: opts.model,
      max_tokens: opts.maxTokens ?? 4096,
      messages,
      ...(system ? { system: promptCache ? [{ type: "text", text: system, cache_control: CACHE_BREAKPOINT }] : system } : {}),
      ...(tools.length > 0 ? { tools } : {}),
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
    };
  }

  return retryingModel(`anthropic:${opts.model}`, target, {
    generate: async (req, attempt) => fromWireMessage(await client.messages.create(body(req), { signal: attempt.signal })),
    stream: (req, attempt) => streamOnce(client, body(req), attempt),
  });
}

/**
 * Anthropic keeps the system prompt apart and wants turns that alternate between user and
 * assistant, with tool results sent as blocks of a user turn. Leading system messages become the
 * system prompt; a later one (an ephemeral hint) is kept in place as user text. When `stableEnd` is
 * given, the last block of the messages before it carries a cache breakpoint: the tail after it
 * changes every request, what is before it is repeated by the next one (Anthropic reads a cached
 * prefix up to a breakpoint, so one on the tail would never be read back). A second breakpoint sits
 * where the previous request's stable prefix ended, just before the model's latest turn: Anthropic
 * looks back only about 20 blocks from a breakpoint, and a turn of many parallel tool calls is longer.
 */
function toWireConversation(messages: readonly Message[], stableEnd: number | undefined): { system: string; messages: MessageParam[] } {
  const systemParts: string[] = [];
  const turns: { role: "user" | "assistant"; content: ContentBlockParam[] }[] = [];
  let lastStable: ContentBlockParam | undefined;
  const add = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = turns.at(-1);
    // Consecutive tool results, and the user text after them, merge into one user turn.
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  };
  for (const [index, message] of messages.entries()) {
    if (index === stableEnd) lastStable = turns.at(-1)?.content.at(-1);
    switch (message.role) {
      case "system":
        if (turns.length === 0) systemParts.push(message.content);
        else add("user", [{ type: "text", text: message.content }]);
        break;
      case "user":
        add("user", [{ type: "text", text: message.content }]);
        break;
      case "tool":
        add("user", [{ type: "tool_result", tool_use_id: message.toolCallId, content: message.content }]);
        break;
      case "assistant":
        add("assistant", [
          // Anthropic rejects empty text blocks.
          ...(message.content ? [{ type: "text" as const, text: message.content }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: "tool_use" as const,
            id: call.id,
            name: call.name,
            input: argumentsObject(call.arguments),
          })),
        ]);
        break;
    }
  }
  if (stableEnd !== undefined && stableEnd >= messages.length) lastStable = turns.at(-1)?.content.at(-1);
  if (lastStable) {
    let turn = turns.findIndex((t) => t.content.includes(lastStable as ContentBlockParam));
    while (turn >= 0 && turns[turn]?.role !== "assistant") turn--;
    const previousEnd = turns[turn - 1]?.content.at(-1);
    if (previousEnd) markBreakpoint(previousEnd);
    markBreakpoint(lastStable);
  }
  return { system: systemParts.join("\n\n"), messages: turns };
}

function markBreakpoint(block: ContentBlockParam): void {
  // Every block kind the conversation uses (text, tool_use, tool_result) takes a breakpoint.
  (block as TextBlockParam).cache_control = CACHE_BREAKPOINT;
}

function toWireTool(tool: ToolSpec): Tool {
  return { name: tool.name, description: tool.description, input_schema: tool.parameters as Tool.InputSchema };
}

function fromWireMessage(response: AnthropicMessage): ModelResponse {
  let content = "";
  const toolCalls: ToolCall[] = [];
  for (const block of response.content) {
    if (block.type === "text") content += block.text;
    if (block.type === "tool_use") toolCalls.push({ id: block.id, name: block.name, arguments: JSON.stringify(block.input) });
  }
  const message: AssistantMessage = { role: "assistant", content };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  return { message, usage: usageOf(response.usage, response.usage.output_tokens) };
}

/**
 * One streamed try. A tool call's input arrives as JSON fragments, kept as the raw text so that
 * malformed input reaches the tool layer as the model wrote it.
 */
async function* streamOnce(
  client: Anthropic,
  body: MessageCreateParamsNonStreaming,
  attempt: Attempt,
): AsyncGenerator<ModelStreamPart> {
  const stream = await client.messages.create({ ...body, stream: true }, { signal: attempt.signal });
  let content = "";
  const toolCalls = new Map<number, ToolCall>();
  let inputUsage: AnthropicMessage["usage"] | undefined;
  let outputTokens = 0;
  let finished = false;
  for await (const event of stream) {
    const delta = event.type === "content_block_delta" ? event.delta : undefined;
    attempt.received(delta?.type === "text_delta" ? delta.text.length : delta?.type === "input_json_delta" ? delta.partial_json.length : 0);
    switch (event.type) {
      case "message_start":
        inputUsage = event.message.usage;
        break;
      case "content_block_start":
        if (event.content_block.type === "tool_use") {
          toolCalls.set(event.index, { id: event.content_block.id, name: event.content_block.name, arguments: "" });
          yield { type: "tool-call-start", id: event.content_block.id, name: event.content_block.name };
        }
        break;
      case "content_block_delta":
        if (event.delta.type === "text_delta") {
          content += event.delta.text;
          yield { type: "text-delta", text: event.delta.text };
        } else if (event.delta.type === "input_json_delta") {
          const call = toolCalls.get(event.index);
          if (call) call.arguments += event.delta.partial_json;
        }
        break;
      case "message_delta":
        outputTokens = event.usage.output_tokens;
        break;
      case "message_stop":
        finished = true;
        break;
    }
  }
  // An aborted request also ends the SDK's iteration quietly; the retry layer then tells a timeout or abort apart.
  if (!finished) throw new IncompleteStreamError("the stream ended before the model finished its answer");
  const message: AssistantMessage = { role: "assistant", content };
  // A tool called without arguments streams no input at all.
  const calls = [...toolCalls.values()].map((call) => ({ ...call, arguments: call.arguments || "{}" }));
  if (calls.length > 0) message.toolCalls = calls;
  yield { type: "response", response: inputUsage ? { message, usage: usageOf(inputUsage, outputTokens) } : { message } };
}

/** Cached prompt tokens are counted apart by Anthropic; ours is the whole prompt, with the cached parts named. */
function usageOf(usage: AnthropicMessage["usage"], outputTokens: number): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return { inputTokens: usage.input_tokens + cacheWrite + cacheRead, outputTokens, cacheReadInputTokens: cacheRead, cacheWriteInputTokens: cacheWrite };
}

function describeAnthropicError(error: unknown): Failure | undefined {
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout", retryable: true, detail: error.message };
  if (error instanceof APIConnectionError) return { kind: "connection", retryable: true, detail: describeChain(error) };
  if (!(error instanceof APIError)) return undefined;
  const detail = error.apiMessage ?? error.message;
  if (typeof error.status === "number") return httpFailure(error.status, error.headers, detail);
  // An error event inside a stream carries no status, only its type.
  const transient = error.type === "overloaded_error" || error.type === "api_error";
  return { kind: transient ? "server" : "unknown", retryable: transient, detail };
}
