import {
  APICallError,
  generateText,
  jsonSchema,
  streamText,
  tool,
  type JSONSchema7,
  type LanguageModel,
  type LanguageModelUsage,
  type ToolSet,
} from "ai";
import type { AssistantMessage, ToolCall } from "../core/messages.js";
import type { ChatModel, ModelRequest, ModelResponse, ModelStreamPart, Usage } from "../core/model.js";
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
import { toModelMessage } from "./ai-sdk-messages.js";

export interface AiSdkModelOptions extends RetryOptions {
  /** Defaults to "<provider>:<modelId>". */
  id?: string | undefined;
  temperature?: number | undefined;
  maxOutputTokens?: number | undefined;
  /**
   * The keys the provider was made with, removed from error messages. Keys in the providers' usual
   * environment variables (OPENAI_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, …) are removed anyway.
   */
  apiKeys?: readonly string[] | undefined;
}

// Where the AI SDK's providers read their keys when they are not given one.
const PROVIDER_KEY_VARIABLES = [
  "AI_GATEWAY_API_KEY",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "MISTRAL_API_KEY",
  "GROQ_API_KEY",
  "XAI_API_KEY",
  "DEEPSEEK_API_KEY",
  "COHERE_API_KEY",
  "AZURE_API_KEY",
];

/**
 * A ChatModel over any AI SDK (`ai` 6.x) language model, so every provider of that ecosystem
 * works. Tools are handed over without `execute`: the AI SDK stops at the tool calls and our
 * runtime runs them.
 */
export function aiSdkModel(model: LanguageModel, opts: AiSdkModelOptions = {}): ChatModel & {
  stream(req: ModelRequest): AsyncIterable<ModelStreamPart>;
} {
  // A plain string names a model behind the AI SDK's gateway.
  const { provider, modelId } = typeof model === "string" ? { provider: "gateway", modelId: model } : model;
  const target: RetryTarget = {
    provider,
    model: modelId,
    settings: retrySettings(opts),
    // The provider holds its key out of our sight: we know the keys we were given and the ones in
    // the environment; redact.ts's key shapes cover the rest as far as they can.
    secrets: [...(opts.apiKeys ?? []), ...PROVIDER_KEY_VARIABLES.map((name) => process.env[name])],
    describe: describeAiSdkError,
  };

  function call(req: ModelRequest, attempt: Attempt) {
    return {
      model,
      messages: req.messages.map(toModelMessage),
      ...(req.tools.length > 0 ? { tools: toToolSet(req) } : {}),
      // Our own messages: a system hint mid-conversation is intended, not an injection.
      allowSystemInMessages: true,
      maxRetries: 0,
      abortSignal: attempt.signal,
      ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      ...(opts.maxOutputTokens !== undefined ? { maxOutputTokens: opts.maxOutputTokens } : {}),
    };
  }

  return retryingModel(opts.id ?? `${provider}:${modelId}`, target, {
    async generate(req, attempt) {
      const result = await generateText(call(req, attempt));
      return response(result.text, result.toolCalls.filter((c) => !c.providerExecuted).map(fromToolCall), result.usage);
    },
    stream: (req, attempt) => streamOnce(call(req, attempt), attempt),
  });
}

async function* streamOnce(args: Parameters<typeof streamText>[0], attempt: Attempt): AsyncGenerator<ModelStreamPart> {
  // Errors come to us as stream parts; the default handler would also print them.
  const result = streamText({ ...args, onError: () => {} });
  let content = "";
  const toolCalls: ToolCall[] = [];
  let usage: LanguageModelUsage | undefined;
  for await (const part of result.fullStream) {
    attempt.received(part.type === "text-delta" ? part.text.length : part.type === "tool-input-delta" ? part.delta.length : 0);
    if (part.type === "text-delta") {
      content += part.text;
      yield { type: "text-delta", text: part.text };
    } else if (part.type === "tool-input-start" && !part.providerExecuted) {
      yield { type: "tool-call-start", id: part.id, name: part.toolName };
    } else if (part.type === "tool-call" && !part.providerExecuted) {
      toolCalls.push(fromToolCall(part));
    } else if (part.type === "error") {
      throw part.error;
    } else if (part.type === "finish" && !(part.finishReason === "other" && part.rawFinishReason === undefined)) {
      // The AI SDK still reports a finish, as "other" with no provider reason, when the provider's
      // stream stopped without one; only a real finish counts.
      usage = part.totalUsage;
    }
  }
  // An aborted stream also ends quietly; the retry layer then tells a timeout or abort apart.
  if (!usage) throw new IncompleteStreamError("the stream ended before the model finished its answer");
  yield { type: "response", response: response(content, toolCalls, usage) };
}

function toToolSet(req: ModelRequest): ToolSet {
  return Object.fromEntries(
    req.tools.map((spec) => [
      spec.name,
      tool({ description: spec.description, inputSchema: jsonSchema(spec.parameters as JSONSchema7) }),
    ]),
  );
}

/**
 * The AI SDK parses tool input; when it cannot (malformed JSON, an unknown tool) it marks the
 * call invalid and keeps the model's text, which we pass on as it was sent.
 */
function fromToolCall(call: { toolCallId: string; toolName: string; input: unknown; invalid?: boolean | undefined }): ToolCall {
  const text = call.invalid && typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {});
  return { id: call.toolCallId, name: call.toolName, arguments: text };
}

function response(content: string, toolCalls: ToolCall[], usage: LanguageModelUsage): ModelResponse {
  const message: AssistantMessage = { role: "assistant", content };
  if (toolCalls.length > 0) message.toolCalls = toolCalls;
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return { message };
  const mapped: Usage = { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 };
  // Providers that cache prompts report what was read and written; the others leave these out.
  const { cacheReadTokens, cacheWriteTokens } = usage.inputTokenDetails;
  if (cacheReadTokens !== undefined) mapped.cacheReadInputTokens = cacheReadTokens;
  if (cacheWriteTokens !== undefined) mapped.cacheWriteInputTokens = cacheWriteTokens;
  return { message, usage: mapped };
}

function describeAiSdkError(error: unknown): Failure | undefined {
  if (!APICallError.isInstance(error)) return undefined;
  if (error.statusCode !== undefined) return httpFailure(error.statusCode, error.responseHeaders, error.message);
  // No status: the request never got an answer.
  return { kind: "connection", retryable: error.isRetryable, detail: describeChain(error) };
}
