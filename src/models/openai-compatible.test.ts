import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { Agent } from "../core/agent.js";
import { defineTool } from "../core/tool.js";
import type { ModelStreamPart } from "../core/model.js";
import { collect, failure } from "./test-support/model-results.js";
import { openAICompatibleModel, type OpenAICompatibleOptions } from "./openai-compatible.js";
import {
  hang,
  inTurn,
  sendJson,
  sendPartialJsonThenDrop,
  sendSse,
  startTestServer,
  type Handler,
  type TestServer,
} from "./test-support/http-server.js";

const API_KEY = "sk-test-0123456789abcdefSECRET";
const FAST = { retryBaseDelayMs: 1, retryMaxDelayMs: 50, timeoutMs: 2_000 };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
});

async function modelAgainst(handler: Handler, opts: Partial<OpenAICompatibleOptions> = {}) {
  server = await startTestServer(handler);
  return openAICompatibleModel({ model: "gpt-test", apiKey: API_KEY, baseURL: `${server.url}/v1`, ...FAST, ...opts });
}

function completion(message: Record<string, unknown>, finishReason = "stop") {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-test",
    choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: finishReason }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
  };
}

const answer = (text: string): Handler => (res) => sendJson(res, 200, completion({ content: text }));
const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-test", choices: [{ index: 0, delta, finish_reason: finishReason }] };
}


describe("openAICompatibleModel", () => {
  it("sends our messages and tools in OpenAI's format and reads tool calls back", async () => {
    const model = await modelAgainst((res) =>
      sendJson(
        res,
        200,
        completion(
          {
            content: "Checking.",
            tool_calls: [{ id: "call_9", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } }],
          },
          "tool_calls",
        ),
      ),
    );
    const response = await model.generate({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather?" },
        { role: "assistant", content: "", toolCalls: [{ id: "call_1", name: "weather", arguments: '{"city":"Paris"}' }] },
        { role: "tool", content: "sunny", toolCallId: "call_1", name: "weather" },
      ],
      tools: [{ name: "weather", description: "Weather for a city.", parameters: { type: "object", properties: { city: { type: "string" } } } }],
    });

    expect(response).toEqual({
      message: { role: "assistant", content: "Checking.", toolCalls: [{ id: "call_9", name: "weather", arguments: '{"city":"Oslo"}' }] },
      usage: { inputTokens: 12, outputTokens: 5 },
    });
    const sent = server!.requests[0]!;
    expect(sent.path).toBe("/v1/chat/completions");
    expect(sent.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(sent.body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } }],
        },
        { role: "tool", tool_call_id: "call_1", content: "sunny" },
      ],
      tools: [
        {
          type: "function",
          function: { name: "weather", description: "Weather for a city.", parameters: { type: "object", properties: { city: { type: "string" } } } },
        },
      ],
    });
  });

  it("leaves tools out when there are none and names the provider in the id", async () => {
    const model = await modelAgainst(answer("hello"), { provider: "deepseek" });
    expect(model.id).toBe("deepseek:gpt-test");
    expect((await model.generate(ask)).message).toEqual({ role: "assistant", content: "hello" });
    expect(server!.requests[0]!.body).not.toHaveProperty("tools");
  });

  it("passes malformed tool arguments through as the text the model sent", async () => {
    const garbled = '{"city": "Oslo",';
    const model = await modelAgainst((res) =>
      sendJson(res, 200, completion({ tool_calls: [{ id: "c1", type: "function", function: { name: "weather", arguments: garbled } }] })),
    );
    const { message } = await model.generate(ask);
    expect(message.toolCalls).toEqual([{ id: "c1", name: "weather", arguments: garbled }]);
  });

  it("waits as long as Retry-After says after a 429, then succeeds", async () => {
    const model = await modelAgainst(
      inTurn((res) => sendJson(res, 429, { error: { message: "slow down" } }, { "retry-after": "0.08" }), answer("done")),
      { retryMaxDelayMs: 5_000 },
    );
    const started = Date.now();
    expect((await model.generate(ask)).message.content).toBe("done");
    expect(server!.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  });

  it("gives up on repeated 500s with a ModelError naming provider, model, status and attempts", async () => {
    const model = await modelAgainst((res) => sendJson(res, 500, { error: { message: "boom" } }), { maxRetries: 2 });
    const error = await failure(model.generate(ask));
    expect(server!.requests).toHaveLength(3);
    expect(error).toMatchObject({ provider: "openai", model: "gpt-test", kind: "server", status: 500, attempts: 3, retryable: true });
    expect(error.message).toBe('openai model "gpt-test" failed after 3 attempts (HTTP 500): boom');
  });

  it("does not retry a request the server rejects", async () => {
    const model = await modelAgainst((res) => sendJson(res, 400, { error: { message: "bad tool schema" } }));
    const error = await failure(model.generate(ask));
    expect(server!.requests).toHaveLength(1);
    expect(error.kind).toBe("request");
    expect(error.message).toContain("not retried");
    expect(error.message).toContain("bad tool schema");
  });

  it("times out a silent server and retries it", async () => {
    const model = await modelAgainst(hang, { timeoutMs: 100, maxRetries: 1 });
    const error = await failure(model.generate(ask));
    // Counted on our side: a cold first request may time out before the server has read it.
    expect(error).toMatchObject({ kind: "timeout", attempts: 2 });
    expect(error.message).toContain("within 100 ms");
  });

  it("retries a connection dropped mid-response", async () => {
    const model = await modelAgainst(inTurn((res) => sendPartialJsonThenDrop(res, completion({ content: "lost" })), answer("again")));
    expect((await model.generate(ask)).message.content).toBe("again");
    expect(server!.requests).toHaveLength(2);
  });

  it("reports a connection that keeps dropping as a connection failure", async () => {
    const model = await modelAgainst((res) => sendPartialJsonThenDrop(res, completion({ content: "lost" })), { maxRetries: 1 });
    const error = await failure(model.generate(ask));
    expect(error).toMatchObject({ kind: "connection", attempts: 2 });
  });

  it("stops waiting for a retry as soon as the caller aborts", async () => {
    const controller = new AbortController();
    // The caller aborts once the server has seen the request and answered "retry in 30 s": an event,
    // not a timer that a busy machine could fire before the request even arrived.
    const model = await modelAgainst(
      (res) => {
        sendJson(res, 429, {}, { "retry-after": "30" });
        res.once("finish", () => controller.abort(new Error("user stop")));
      },
      { retryMaxDelayMs: 60_000 },
    );
    const started = Date.now();
    await expect(model.generate({ ...ask, signal: controller.signal })).rejects.toThrow("user stop");
    // Far below the 30 s the server asked for, with room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(server!.requests).toHaveLength(1);
  });

  it("never puts the API key in an error message", async () => {
    const model = await modelAgainst(
      (res) => sendJson(res, 401, { error: { message: `Incorrect API key provided: ${API_KEY}` } }),
    );
    const error = await failure(model.generate(ask));
    expect(error.status).toBe(401);
    for (const text of [error.message, String(error), error.stack ?? "", JSON.stringify(error)]) {
      expect(text).not.toContain(API_KEY);
    }
    expect(error.message).toContain("Incorrect API key provided: [redacted]");
  });

  it("never sends OPENAI_API_KEY to another server", async () => {
    vi.stubEnv("OPENAI_API_KEY", API_KEY);
    const model = await modelAgainst(answer("ok"), { apiKey: undefined });
    await model.generate(ask);
    expect(server!.requests[0]!.headers.authorization).not.toContain(API_KEY);
  });

  it("leaves a tool call id the server left out empty, so the agent gives each turn's call its own id", async () => {
    const idless = { type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } };
    const toolCall: Handler = (res) => sendJson(res, 200, completion({ tool_calls: [idless] }, "tool_calls"));
    const streamedToolCall: Handler = (res) =>
      sendSse(res, [{ data: chunk({ tool_calls: [{ index: 0, ...idless }] }) }, { data: chunk({}, "tool_calls") }, { data: "[DONE]" }]);
    const streamedAnswer: Handler = (res) =>
      sendSse(res, [{ data: chunk({ content: "Sunny twice." }) }, { data: chunk({}, "stop") }, { data: "[DONE]" }]);
    // The agent streams, since the model can.
    const model = await modelAgainst(inTurn(toolCall, streamedToolCall, streamedToolCall, streamedToolCall, streamedAnswer));
    expect((await model.generate(ask)).message.toolCalls?.[0]?.id).toBe("");
    const streamed = await collect(model.stream(ask));
    expect(streamed.at(-1)).toMatchObject({ type: "response", response: { message: { toolCalls: [{ id: "", name: "weather" }] } } });

    // Two turns through an agent: a made-up id repeated every turn would let context folding confuse them.
    const weather = defineTool({ name: "weather", description: "Weather.", parameters: z.object({ city: z.string() }), execute: () => "sunny" });
    const agent = new Agent({ model, tools: [weather] });
    await agent.run("Weather in Oslo, twice?");
    const ids = agent.memory.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.id) : []));
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });

  describe("stream", () => {
    const toolCallStream: Handler = (res) =>
      sendSse(res, [
        { data: chunk({ role: "assistant", content: "Let me " }) },
        { data: chunk({ content: "check." }) },
        { data: chunk({ tool_calls: [{ index: 0, id: "call_7", type: "function", function: { name: "weather", arguments: "" } }] }) },
        { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }) },
        { data: chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }) },
        { data: chunk({}, "tool_calls") },
        { data: { ...chunk({}), choices: [], usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 } } },
        { data: "[DONE]" },
      ]);

    it("yields text deltas, then one response with the tool calls put together", async () => {
      const model = await modelAgainst(toolCallStream);
      const parts = await collect(model.stream(ask));
      expect(parts).toEqual([
        { type: "text-delta", text: "Let me " },
        { type: "text-delta", text: "check." },
        { type: "tool-call-start", id: "call_7", name: "weather" },
        {
          type: "response",
          response: {
            message: { role: "assistant", content: "Let me check.", toolCalls: [{ id: "call_7", name: "weather", arguments: '{"city":"Oslo"}' }] },
            usage: { inputTokens: 20, outputTokens: 9 },
          },
        },
      ]);
      expect(server!.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    });

    it("fails clearly, without retrying, when the stream stops short after text was yielded", async () => {
      const model = await modelAgainst((res) => sendSse(res, [{ data: chunk({ content: "Half an ans" }) }]));
      const parts: ModelStreamPart[] = [];
      const error = await failure(
        (async () => {
          for await (const part of model.stream(ask)) parts.push(part);
        })(),
      );
      expect(parts).toEqual([{ type: "text-delta", text: "Half an ans" }]);
      expect(server!.requests).toHaveLength(1);
      expect(error.kind).toBe("incomplete-stream");
      expect(error.message).toContain("ended before the model finished");
      expect(error.message).toContain("not retried");
    });

    it("retries a truncated stream that had yielded nothing yet", async () => {
      const model = await modelAgainst(
        inTurn((res) => sendSse(res, [{ data: chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "weather", arguments: "{" } }] }) }]), toolCallStream),
      );
      const parts = await collect(model.stream(ask));
      expect(parts.at(-1)).toMatchObject({ type: "response", response: { message: { content: "Let me check." } } });
      expect(server!.requests).toHaveLength(2);
    });

    it("reports a connection dropped mid-stream", async () => {
      const model = await modelAgainst(
        (res) => sendSse(res, [{ data: chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "weather", arguments: "{" } }] }) }], "drop-connection"),
        { maxRetries: 1 },
      );
      const error = await failure(collect(model.stream(ask)));
      expect(server!.requests).toHaveLength(2);
      expect(error.kind).toBe("connection");
    });

    it("passes malformed streamed tool arguments through", async () => {
      const model = await modelAgainst((res) =>
        sendSse(res, [
          { data: chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "weather", arguments: "{city: Oslo" } }] }) },
          { data: chunk({}, "tool_calls") },
        ]),
      );
      const parts = await collect(model.stream(ask));
      expect(parts).toEqual([
        { type: "tool-call-start", id: "c1", name: "weather" },
        { type: "response", response: { message: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "weather", arguments: "{city: Oslo" }] } } },
      ]);
    });

    it("times out a stream that goes silent between chunks", async () => {
      const model = await modelAgainst(
        (res) => {
          res.writeHead(200, { "content-type": "text/event-stream" });
          res.write(`data: ${JSON.stringify(chunk({ tool_calls: [{ index: 0, id: "c", function: { name: "w", arguments: "" } }] }))}\n\n`);
        },
        { timeoutMs: 80, maxRetries: 0 },
      );
      const error = await failure(collect(model.stream(ask)));
      expect(error.kind).toBe("timeout");
    });
  });
});
