import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
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

export interface OpenAICompatibleOptions extends RetryOptions {
  model: string;
  /**
   * Without one, OPENAI_API_KEY is used, but only for OpenAI's own endpoint: that key is never
   * sent to another baseURL. Servers that need no key (Ollama) get a placeholder.
   */
  apiKey?: string | undefined;
  /** Any server speaking OpenAI's chat completions API (DashScope, DeepSeek, Ollama, vLLM, ...). */
  baseURL?: string | undefined;
  /** Names the provider in the model id and in error messages (default "openai"). */
  provider?: string | undefined;
  temperature?: number | undefined;
  /** Extra request-body fields a compatible server understands, e.g. DashScope's `enable_thinking`. */
  extraBody?: Record<string, unknown> | undefined;
  /**
   * Sent as `prompt_cache_key`: OpenAI routes requests with the same key to the same prompt cache,
   * so an agent's turns, which share their prefix, keep hitting it. One key per agent or run suits.
   */
  promptCacheKey?: string | undefined;
}

/** A ChatModel for OpenAI's chat completions API and the many servers that speak it. */
export function openAICompatibleModel(opts: OpenAICompatibleOptions): ChatModel & {
  stream(req: ModelRequest): AsyncIterable<ModelStreamPart>;
} {
  const provider = opts.provider ?? "openai";
  const apiKey = opts.apiKey ?? (opts.baseURL === undefined ? process.env["OPENAI_API_KEY"] : "no-key-needed");
  if (!apiKey) {
    throw new Error(`openAICompatibleModel("${opts.model}") needs an API key: pass apiKey or set OPENAI_API_KEY.`);
  }
  const settings = retrySettings(opts);
  const client = new OpenAI({
    apiKey,
    ...(opts.baseURL !== undefined ? { baseURL: opts.baseURL } : {}),
    maxRetries: 0,
    timeout: settings.timeoutMs,
  });
  const target: RetryTarget = {
    provider,
    model: opts.model,
    settings,
    secrets: [apiKey],
    describe: describeOpenAIError,
  };

  function body(req: ModelRequest): ChatCompletionCreateParamsNonStreaming {
    return {
      ...opts.extraBody,
      model: opts.model,
      messages: req.messages.map(toWireMessage),
      // Some compatible servers reject an empty tools array.
      ...(req.tools.length > 0 ? { tools: req.tools.map(toWireTool) } : {}),
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      ...(opts.promptCacheKey !== undefined ? { prompt_cache_key: opts.promptCacheKey } : {}),
    };
  }

  return retryingModel(`${provider}:${opts.model}`, target, {
    generate: async (req, attempt) => fromCompletion(await client.chat.completions.create(body(req), { signal: attempt.signal })),
    stream: (req, attempt) => streamOnce(client, body(req), attempt),
  });
}

function toWireMessage(message: Message): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, content: message.content };
    case "assistant": {
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        // OpenAI wants null rather than "" beside tool calls.
        content: message.content || null,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
  }
}

function toWireTool(tool: ToolSpec): ChatCompletionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters as Record<string, unknown> },
  };
}

function fromCompletion(completion: ChatCompletion): ModelResponse {
  const choice = completion.choices[0];
  if (!choice) throw new Error("the response held no choices");
  const { content, refusal, tool_calls } = choice.message;
  // Some compatible servers leave out the id; it stays empty and the agent fills in a unique one.
  const toolCalls = (tool_calls ?? []).flatMap((call): ToolCall[] =>
    call.type === "function" ? [{ id: call.id ?? "", name: call.function.name, arguments: call.function.arguments }] : [],
  );
  const message: AssistantMessage = { role: "assistant", content: content ?? refusal ?? "" };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  return withUsage(message, completion.usage);
}

/**
 * One streamed try. Tool calls arrive in pieces keyed by index: the id and name once, the
 * arguments as text fragments, which are concatenated unparsed.
 */
async function* streamOnce(
  client: OpenAI,
  body: ChatCompletionCreateParamsNonStreaming,
  attempt: Attempt,
): AsyncGenerator<ModelStreamPart> {
  const stream = await client.chat.completions.create(
    { ...body, stream: true, stream_options: { include_usage: true } },
    { signal: attempt.signal },
  );
  let content = "";
  const calls: ToolCall[] = [];
  let finished = false;
  let usage: ChatCompletionChunk["usage"];
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    attempt.received((choice?.delta.content?.length ?? 0) + (choice?.delta.tool_calls ?? []).reduce((sum, piece) => sum + (piece.function?.arguments?.length ?? 0), 0));
    if (chunk.usage) usage = chunk.usage;
    if (!choice) continue;
    if (choice.delta.content) {
      content += choice.delta.content;
      yield { type: "text-delta", text: choice.delta.content };
    }
    for (const piece of choice.delta.tool_calls ?? []) {
      const call = (calls[piece.index] ??= { id: "", name: "", arguments: "" });
      // Some servers repeat the id and name in every piece; only the first counts.
      if (piece.id && !call.id) call.id = piece.id;
      if (piece.function?.name && !call.name) {
        call.name = piece.function.name;
        yield { type: "tool-call-start", id: call.id, name: call.name };
      }
      call.arguments += piece.function?.arguments ?? "";
    }
    if (choice.finish_reason) finished = true;
  }
  // An aborted request also ends the SDK's iteration quietly; the retry layer then tells a timeout or abort apart.
  if (!finished) throw new IncompleteStreamError("the stream ended before the model finished its answer");
  const message: AssistantMessage = { role: "assistant", content };
  // A call whose id never came keeps "": the agent fills in a unique one.
  const toolCalls = calls.filter(Boolean);
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  yield { type: "response", response: withUsage(message, usage) };
}

/** OpenAI counts cached prompt tokens inside prompt_tokens, and names them in the details when it cached any. */
function withUsage(message: AssistantMessage, usage: ChatCompletion["usage"] | null | undefined): ModelResponse {
  if (!usage) return { message };
  const mapped: Usage = { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === "number") mapped.cacheReadInputTokens = cached;
  return { message, usage: mapped };
}

function describeOpenAIError(error: unknown): Failure | undefined {
  if (error instanceof APIConnectionTimeoutError) return { kind: "timeout", retryable: true, detail: error.message };
  if (error instanceof APIConnectionError) return { kind: "connection", retryable: true, detail: describeChain(error) };
  if (error instanceof APIError && typeof error.status === "number") {
    return httpFailure(error.status, error.headers, error.message);
  }
  return undefined;
}
