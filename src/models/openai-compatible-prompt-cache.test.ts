import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../core/agent.js";
import { collect } from "./test-support/model-results.js";
import { openAICompatibleModel } from "./openai-compatible.js";
import { inTurn, sendSse, startTestServer, type Handler, type TestServer } from "./test-support/http-server.js";
import { sendOpenAIReply } from "./test-support/streamed-replies.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const usage = (prompt: number, cached?: number) => ({
  prompt_tokens: prompt,
  completion_tokens: 3,
  total_tokens: prompt + 3,
  ...(cached === undefined ? {} : { prompt_tokens_details: { cached_tokens: cached } }),
});

function completion(message: Record<string, unknown>, cached?: number): Handler {
  return (res, req) =>
    sendOpenAIReply(res, req, {
      id: "c",
      model: "gpt-test",
      choices: [{ message: { role: "assistant", content: null, ...message }, finish_reason: "stop" }],
      usage: usage(2000, cached),
    });
}
const toolCall = (id: string) => ({ tool_calls: [{ id, type: "function", function: { name: "missing_tool", arguments: "{}" } }] });

describe("openAICompatibleModel and the prompt cache", () => {
  it("reads cached prompt tokens turn by turn and sends the prompt cache key with every request", async () => {
    server = await startTestServer(inTurn(completion(toolCall("a")), completion(toolCall("b"), 1024), completion({ content: "done" }, 1920)));
    const model = openAICompatibleModel({ model: "gpt-test", apiKey: "sk-test", baseURL: `${server.url}/v1`, promptCacheKey: "run-42" });
    const agent = new Agent({ model, systemPrompt: "Be brief." });
    const result = await agent.run("Go.");
    expect(server.requests.map((r) => r.body.prompt_cache_key)).toEqual(["run-42", "run-42", "run-42"]);
    // The first reply named no cached tokens; the run's total counts what the provider reported.
    expect(result.usage).toEqual({ inputTokens: 6000, outputTokens: 9, cacheReadInputTokens: 2944 });
  });

  it("reads cached tokens from a stream's usage chunk, and sends no key unless given one", async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id: "c",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-test",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    server = await startTestServer((res) =>
      sendSse(res, [
        { data: chunk({ role: "assistant", content: "hi" }) },
        { data: chunk({}, "stop") },
        { data: { ...chunk({}), choices: [], usage: usage(1500, 1280) } },
        { data: "[DONE]" },
      ]),
    );
    const model = openAICompatibleModel({ model: "gpt-test", apiKey: "sk-test", baseURL: `${server.url}/v1` });
    const parts = await collect(model.stream({ messages: [{ role: "user", content: "hi" }], tools: [] }));
    expect(parts.at(-1)).toMatchObject({ response: { usage: { inputTokens: 1500, outputTokens: 3, cacheReadInputTokens: 1280 } } });
    expect(server.requests[0]?.body).not.toHaveProperty("prompt_cache_key");
  });
});
