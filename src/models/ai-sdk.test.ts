import { APICallError } from "ai";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it, vi } from "vitest";
import { aiSdkModel } from "./ai-sdk.js";
import { collect, failure } from "./test-support/model-results.js";

const FAST = { retryBaseDelayMs: 1, retryMaxDelayMs: 50, timeoutMs: 2_000 };
const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

const usage = {
  inputTokens: { total: 11, noCache: 11, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 6, text: 6, reasoning: undefined },
};

function result(content: LanguageModelV3GenerateResult["content"]): LanguageModelV3GenerateResult {
  return { content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
}

function streamOf(parts: LanguageModelV3StreamPart[]) {
  return { stream: simulateReadableStream({ chunks: parts, chunkDelayInMs: 0 }) };
}

function httpError(statusCode: number, message: string, headers: Record<string, string> = {}) {
  return new APICallError({
    message,
    url: "https://api.example.test/v1/chat",
    requestBodyValues: {},
    statusCode,
    responseHeaders: headers,
    isRetryable: statusCode === 429 || statusCode >= 500,
  });
}

/** A doGenerate that plays `steps` in order, throwing the errors among them. */
function inTurn(...steps: (LanguageModelV3GenerateResult | Error)[]) {
  let call = 0;
  return async () => {
    const step = steps[Math.min(call++, steps.length - 1)]!;
    if (step instanceof Error) throw step;
    return step;
  };
}


describe("aiSdkModel", () => {
  it("hands our messages and tools to the AI SDK model and reads its tool calls back", async () => {
    const mock = new MockLanguageModelV3({
      provider: "mock-provider",
      modelId: "mock-1",
      doGenerate: result([
        { type: "text", text: "Checking." },
        { type: "tool-call", toolCallId: "tc9", toolName: "weather", input: '{"city":"Oslo"}' },
      ]),
    });
    const model = aiSdkModel(mock, FAST);
    const response = await model.generate({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather?" },
        { role: "assistant", content: "", toolCalls: [{ id: "tc1", name: "weather", arguments: '{"city":"Paris"}' }] },
        { role: "tool", content: "sunny", toolCallId: "tc1", name: "weather" },
      ],
      tools: [{ name: "weather", description: "Weather for a city.", parameters: { type: "object", properties: { city: { type: "string" } } } }],
    });

    expect(model.id).toBe("mock-provider:mock-1");
    expect(response).toEqual({
      message: { role: "assistant", content: "Checking.", toolCalls: [{ id: "tc9", name: "weather", arguments: '{"city":"Oslo"}' }] },
      usage: { inputTokens: 11, outputTokens: 6 },
    });
    const sent = mock.doGenerateCalls[0] as LanguageModelV3CallOptions;
    expect(sent.prompt).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: [{ type: "text", text: "Weather?" }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "tc1", toolName: "weather", input: { city: "Paris" } }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "tc1", toolName: "weather", output: { type: "text", value: "sunny" } }] },
    ]);
    expect(sent.tools).toEqual([
      {
        type: "function",
        name: "weather",
        description: "Weather for a city.",
        inputSchema: { type: "object", properties: { city: { type: "string" } } },
      },
    ]);
  });

  it("passes malformed tool input through as the text the model sent", async () => {
    const garbled = '{"city": Oslo';
    const mock = new MockLanguageModelV3({
      doGenerate: result([{ type: "tool-call", toolCallId: "tc1", toolName: "weather", input: garbled }]),
    });
    const { message } = await aiSdkModel(mock, FAST).generate({
      ...ask,
      tools: [{ name: "weather", description: "w", parameters: { type: "object" } }],
    });
    expect(message.toolCalls).toEqual([{ id: "tc1", name: "weather", arguments: garbled }]);
  });

  it("waits as long as the provider's retry-after-ms says after a 429, then succeeds", async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: inTurn(httpError(429, "rate limited", { "retry-after-ms": "80" }), result([{ type: "text", text: "done" }])),
    });
    const started = Date.now();
    const { message } = await aiSdkModel(mock, { ...FAST, retryMaxDelayMs: 5_000 }).generate(ask);
    expect(message.content).toBe("done");
    expect(mock.doGenerateCalls).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  });

  it("gives up on repeated 500s with a ModelError naming provider, model, status and attempts", async () => {
    const mock = new MockLanguageModelV3({ provider: "acme", modelId: "big", doGenerate: inTurn(httpError(500, "Internal error")) });
    const error = await failure(aiSdkModel(mock, { ...FAST, maxRetries: 1 }).generate(ask));
    expect(mock.doGenerateCalls).toHaveLength(2);
    expect(error.message).toBe('acme model "big" failed after 2 attempts (HTTP 500): Internal error');
  });

  it("retries when the request never got an answer", async () => {
    const unreachable = new APICallError({
      message: "Cannot connect to API: other side closed",
      url: "https://api.example.test",
      requestBodyValues: {},
      isRetryable: true,
    });
    const mock = new MockLanguageModelV3({ doGenerate: inTurn(unreachable, result([{ type: "text", text: "back" }])) });
    expect((await aiSdkModel(mock, FAST).generate(ask)).message.content).toBe("back");
    expect(mock.doGenerateCalls).toHaveLength(2);
  });

  it("times out a model that does not answer", async () => {
    const mock = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason))),
    });
    const error = await failure(aiSdkModel(mock, { ...FAST, timeoutMs: 40, maxRetries: 1 }).generate(ask));
    expect(error).toMatchObject({ kind: "timeout", attempts: 2 });
    expect(mock.doGenerateCalls).toHaveLength(2);
  });

  it("scrubs credentials out of provider error text", async () => {
    const key = "sk-live-0123456789abcdefghij";
    const mock = new MockLanguageModelV3({ doGenerate: inTurn(httpError(401, `Invalid key ${key} (header: Bearer ${key})`)) });
    const error = await failure(aiSdkModel(mock, FAST).generate(ask));
    expect(error.status).toBe(401);
    expect(error.message).not.toContain(key);
    expect(error.stack).not.toContain(key);
  });

  it("removes the keys it was given and the ones in providers' environment variables from errors, whatever their shape", async () => {
    const given = "Zq9-odd-shaped-given-key";
    const fromEnv = "Zq9-odd-shaped-env-key";
    vi.stubEnv("GOOGLE_GENERATIVE_AI_API_KEY", fromEnv);
    try {
      const mock = new MockLanguageModelV3({ doGenerate: inTurn(httpError(403, `Keys ${given} and ${fromEnv} are not allowed here`)) });
      const error = await failure(aiSdkModel(mock, { ...FAST, apiKeys: [given] }).generate(ask));
      expect(error.message).toContain("Keys [redacted] and [redacted] are not allowed here");
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("reports the prompt tokens a provider read from and wrote to its cache, when it says", async () => {
    const cached = {
      inputTokens: { total: 3000, noCache: 200, cacheRead: 2500, cacheWrite: 300 },
      outputTokens: { total: 6, text: 6, reasoning: undefined },
    };
    const mock = new MockLanguageModelV3({
      doGenerate: { ...result([{ type: "text", text: "ok" }]), usage: cached },
      doStream: streamOf([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "ok" },
        { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: cached },
      ]),
    });
    const expected = { inputTokens: 3000, outputTokens: 6, cacheReadInputTokens: 2500, cacheWriteInputTokens: 300 };
    expect((await aiSdkModel(mock, FAST).generate(ask)).usage).toEqual(expected);
    expect((await collect(aiSdkModel(mock, FAST).stream(ask))).at(-1)).toEqual({ type: "response", response: expect.objectContaining({ usage: expected }) });
  });

  describe("stream", () => {
    const finish: LanguageModelV3StreamPart = { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage };

    it("yields text deltas and the start of each tool call, then one response with the tool calls", async () => {
      const mock = new MockLanguageModelV3({
        doStream: streamOf([
          { type: "stream-start", warnings: [] },
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "Let me " },
          { type: "text-delta", id: "t", delta: "check." },
          { type: "text-end", id: "t" },
          { type: "tool-input-start", id: "tc7", toolName: "weather" },
          { type: "tool-input-delta", id: "tc7", delta: '{"city":"Oslo"}' },
          { type: "tool-input-end", id: "tc7" },
          { type: "tool-call", toolCallId: "tc7", toolName: "weather", input: '{"city":"Oslo"}' },
          finish,
        ]),
      });
      const parts = await collect(
        aiSdkModel(mock, FAST).stream({ ...ask, tools: [{ name: "weather", description: "w", parameters: { type: "object" } }] }),
      );
      expect(parts).toEqual([
        { type: "text-delta", text: "Let me " },
        { type: "text-delta", text: "check." },
        { type: "tool-call-start", id: "tc7", name: "weather" },
        {
          type: "response",
          response: {
            message: { role: "assistant", content: "Let me check.", toolCalls: [{ id: "tc7", name: "weather", arguments: '{"city":"Oslo"}' }] },
            usage: { inputTokens: 11, outputTokens: 6 },
          },
        },
      ]);
    });

    it("retries an error that arrives before any output", async () => {
      let calls = 0;
      const mock = new MockLanguageModelV3({
        doStream: async () => {
          if (calls++ === 0) throw httpError(503, "unavailable");
          return streamOf([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "ok" }, finish]);
        },
      });
      const parts = await collect(aiSdkModel(mock, FAST).stream(ask));
      expect(parts.at(-1)).toMatchObject({ type: "response", response: { message: { content: "ok" } } });
      expect(mock.doStreamCalls).toHaveLength(2);
    });

    it("fails clearly when the stream ends before the model finished", async () => {
      const mock = new MockLanguageModelV3({
        doStream: streamOf([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Half" }]),
      });
      const error = await failure(collect(aiSdkModel(mock, FAST).stream(ask)));
      expect(error.kind).toBe("incomplete-stream");
      expect(mock.doStreamCalls).toHaveLength(1);
    });
  });
});
