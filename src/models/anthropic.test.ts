import { afterEach, describe, expect, it } from "vitest";
import { anthropicModel, type AnthropicModelOptions } from "./anthropic.js";
import { collect, failure } from "./test-support/model-results.js";
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

const API_KEY = "sk-ant-test-0123456789abcdefSECRET";
const FAST = { retryBaseDelayMs: 1, retryMaxDelayMs: 50, timeoutMs: 2_000 };

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelAgainst(handler: Handler, opts: Partial<AnthropicModelOptions> = {}) {
  server = await startTestServer(handler);
  return anthropicModel({ model: "claude-test", apiKey: API_KEY, baseURL: server.url, ...FAST, ...opts });
}

function wireMessage(content: unknown[], stopReason = "end_turn") {
  return {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-test",
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 2, cache_creation_input_tokens: null },
  };
}

const answer = (text: string): Handler => (res) => sendJson(res, 200, wireMessage([{ type: "text", text }]));
const apiError = (type: string, message: string) => ({ type: "error", error: { type, message } });
const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

/** Anthropic's event stream for a turn: its events are named after their type. */
function events(...items: Record<string, unknown>[]) {
  return items.map((data) => ({ event: String(data["type"]), data }));
}
const messageStart = { type: "message_start", message: { ...wireMessage([]), usage: { input_tokens: 30, output_tokens: 1 } } };
const messageEnd = [
  { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 15 } },
  { type: "message_stop" },
];


describe("anthropicModel", () => {
  it("separates the system prompt, merges tool results into one user turn and reads tool_use back", async () => {
    const model = await modelAgainst((res) =>
      sendJson(
        res,
        200,
        wireMessage(
          [
            { type: "text", text: "Comparing." },
            { type: "tool_use", id: "toolu_2", name: "weather", input: { city: "Oslo", days: 2 } },
          ],
          "tool_use",
        ),
      ),
    );
    const response = await model.generate({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Paris or Rome?" },
        {
          role: "assistant",
          content: "Looking.",
          toolCalls: [
            { id: "toolu_a", name: "weather", arguments: '{"city":"Paris"}' },
            { id: "toolu_b", name: "weather", arguments: '{"city":"Rome"}' },
          ],
        },
        { role: "tool", content: "sunny", toolCallId: "toolu_a", name: "weather" },
        { role: "tool", content: "rain", toolCallId: "toolu_b", name: "weather" },
        { role: "system", content: "<system-hint>finish soon</system-hint>" },
      ],
      tools: [{ name: "weather", description: "Weather for a city.", parameters: { type: "object", properties: { city: { type: "string" } } } }],
      ephemeralFrom: 5,
    });

    expect(response).toEqual({
      message: {
        role: "assistant",
        content: "Comparing.",
        toolCalls: [{ id: "toolu_2", name: "weather", arguments: '{"city":"Oslo","days":2}' }],
      },
      usage: { inputTokens: 12, outputTokens: 4, cacheReadInputTokens: 2, cacheWriteInputTokens: 0 },
    });
    const sent = server!.requests[0]!;
    expect(sent.path).toBe("/v1/messages");
    // The SDK picks the header (x-api-key or a bearer token); either way the key is ours.
    expect([sent.headers["x-api-key"], sent.headers.authorization]).toContainEqual(expect.stringContaining(API_KEY));
    expect(sent.body).toEqual({
      model: "claude-test",
      max_tokens: 4096,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }],
      messages: [
        // Where the previous request's stored prefix ended, just before the model's latest turn.
        { role: "user", content: [{ type: "text", text: "Paris or Rome?", cache_control: { type: "ephemeral" } }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Looking." },
            { type: "tool_use", id: "toolu_a", name: "weather", input: { city: "Paris" } },
            { type: "tool_use", id: "toolu_b", name: "weather", input: { city: "Rome" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_a", content: "sunny" },
            // The breakpoint sits on the last stored message; the hint after it is the ephemeral tail.
            { type: "tool_result", tool_use_id: "toolu_b", content: "rain", cache_control: { type: "ephemeral" } },
            { type: "text", text: "<system-hint>finish soon</system-hint>" },
          ],
        },
      ],
      tools: [
        {
          name: "weather",
          description: "Weather for a city.",
          input_schema: { type: "object", properties: { city: { type: "string" } } },
          cache_control: { type: "ephemeral" },
        },
      ],
    });
  });

  it("sends a call whose arguments the model garbled as empty input, with no empty text block", async () => {
    const model = await modelAgainst(answer("ok"), { maxTokens: 100 });
    await model.generate({
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "t1", name: "weather", arguments: '{"city": Oslo' }] },
        { role: "tool", content: "Invalid JSON in arguments", toolCallId: "t1", name: "weather" },
      ],
      tools: [],
    });
    const body = server!.requests[0]!.body;
    expect(body.max_tokens).toBe(100);
    expect(body).not.toHaveProperty("tools");
    expect(body).not.toHaveProperty("system");
    expect(body.messages[1]).toEqual({ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "weather", input: {} }] });
  });

  it("waits as long as retry-after-ms says after a 429, then succeeds", async () => {
    const model = await modelAgainst(
      inTurn((res) => sendJson(res, 429, apiError("rate_limit_error", "slow down"), { "retry-after-ms": "80" }), answer("done")),
      { retryMaxDelayMs: 5_000 },
    );
    const started = Date.now();
    expect((await model.generate(ask)).message.content).toBe("done");
    expect(server!.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  });

  it("gives up on a provider that stays overloaded with a clear ModelError", async () => {
    const model = await modelAgainst((res) => sendJson(res, 529, apiError("overloaded_error", "Overloaded")), { maxRetries: 3 });
    const error = await failure(model.generate(ask));
    expect(server!.requests).toHaveLength(4);
    expect(error).toMatchObject({ provider: "anthropic", model: "claude-test", kind: "server", status: 529, attempts: 4 });
    expect(error.message).toBe('anthropic model "claude-test" failed after 4 attempts (HTTP 529): Overloaded');
  });

  it("times out a silent server", async () => {
    const model = await modelAgainst(hang, { timeoutMs: 100, maxRetries: 1 });
    const error = await failure(model.generate(ask));
    expect(error).toMatchObject({ kind: "timeout", attempts: 2 });
  });

  it("retries a connection dropped mid-response", async () => {
    const model = await modelAgainst(inTurn((res) => sendPartialJsonThenDrop(res, wireMessage([{ type: "text", text: "lost" }])), answer("again")));
    expect((await model.generate(ask)).message.content).toBe("again");
    expect(server!.requests).toHaveLength(2);
  });

  it("never puts the API key in an error message", async () => {
    const model = await modelAgainst((res) => sendJson(res, 401, apiError("authentication_error", `invalid x-api-key ${API_KEY}`)));
    const error = await failure(model.generate(ask));
    expect(error).toMatchObject({ kind: "request", status: 401, attempts: 1 });
    for (const text of [error.message, String(error), error.stack ?? "", JSON.stringify(error)]) {
      expect(text).not.toContain(API_KEY);
    }
  });

  describe("stream", () => {
    const toolUseStream: Handler = (res) =>
      sendSse(
        res,
        events(
          messageStart,
          { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Let me " } },
          { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "check." } },
          { type: "content_block_stop", index: 0 },
          { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_7", name: "weather", input: {} } },
          { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"city":' } },
          { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '"Oslo"}' } },
          { type: "content_block_stop", index: 1 },
          { type: "content_block_start", index: 2, content_block: { type: "tool_use", id: "toolu_8", name: "now", input: {} } },
          { type: "content_block_stop", index: 2 },
          ...messageEnd,
        ),
      );

    it("yields text deltas, then one response with the tool calls put together", async () => {
      const model = await modelAgainst(toolUseStream);
      expect(await collect(model.stream(ask))).toEqual([
        { type: "text-delta", text: "Let me " },
        { type: "text-delta", text: "check." },
        { type: "tool-call-start", id: "toolu_7", name: "weather" },
        { type: "tool-call-start", id: "toolu_8", name: "now" },
        {
          type: "response",
          response: {
            message: {
              role: "assistant",
              content: "Let me check.",
              toolCalls: [
                { id: "toolu_7", name: "weather", arguments: '{"city":"Oslo"}' },
                { id: "toolu_8", name: "now", arguments: "{}" },
              ],
            },
            usage: { inputTokens: 30, outputTokens: 15, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 },
          },
        },
      ]);
      expect(server!.requests[0]!.body.stream).toBe(true);
    });

    it("passes malformed streamed tool input through as text", async () => {
      const model = await modelAgainst((res) =>
        sendSse(
          res,
          events(
            messageStart,
            { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t1", name: "weather", input: {} } },
            { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: '{"city": Oslo' } },
            { type: "content_block_stop", index: 0 },
            ...messageEnd,
          ),
        ),
      );
      const parts = await collect(model.stream(ask));
      expect(parts.at(-1)).toMatchObject({ response: { message: { toolCalls: [{ id: "t1", arguments: '{"city": Oslo' }] } } });
    });

    it("retries an overloaded error sent inside the stream", async () => {
      const model = await modelAgainst(
        inTurn((res) => sendSse(res, [...events(messageStart), { event: "error", data: apiError("overloaded_error", "Overloaded") }]), toolUseStream),
      );
      const parts = await collect(model.stream(ask));
      expect(parts.at(-1)).toMatchObject({ type: "response" });
      expect(server!.requests).toHaveLength(2);
    });

    it("fails clearly when the stream ends without message_stop", async () => {
      const model = await modelAgainst(
        (res) =>
          sendSse(
            res,
            events(messageStart, { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "t", name: "w", input: {} } }),
          ),
        { maxRetries: 1 },
      );
      const error = await failure(collect(model.stream(ask)));
      expect(server!.requests).toHaveLength(2);
      expect(error).toMatchObject({ kind: "incomplete-stream", attempts: 2 });
      expect(error.message).toContain("ended before the model finished");
    });

    it("reports a connection dropped mid-stream after text, without retrying", async () => {
      const model = await modelAgainst((res) =>
        sendSse(
          res,
          events(
            messageStart,
            { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
            { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hal" } },
          ),
          "drop-connection",
        ),
      );
      const error = await failure(collect(model.stream(ask)));
      expect(server!.requests).toHaveLength(1);
      expect(error.kind).toBe("connection");
      expect(error.message).toContain("not retried");
    });
  });
});
