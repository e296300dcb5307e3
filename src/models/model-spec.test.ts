import { afterEach, describe, expect, it } from "vitest";
import { parseModelSpec, resolveModel } from "./model-spec.js";
import { sendJson, startTestServer, type TestServer } from "./test-support/http-server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const ask = { messages: [{ role: "user" as const, content: "hi" }], tools: [] };

describe("parseModelSpec", () => {
  it.each([
    ["openai:gpt-4o-mini", { OPENAI_API_KEY: "k-openai" }, "openai-compatible", "k-openai", "https://api.openai.com/v1"],
    ["dashscope:qwen-max", { DASHSCOPE_API_KEY: "k-ds" }, "openai-compatible", "k-ds", "https://dashscope.aliyuncs.com/compatible-mode/v1"],
    ["deepseek:deepseek-chat", { DEEPSEEK_API_KEY: "k-deep" }, "openai-compatible", "k-deep", "https://api.deepseek.com"],
    ["anthropic:claude-sonnet-4-5", { ANTHROPIC_API_KEY: "k-ant" }, "anthropic", "k-ant", "https://api.anthropic.com"],
    ["ollama:qwen2.5", {}, "openai-compatible", undefined, "http://127.0.0.1:11434/v1"],
  ])("%s reads its key from the environment and knows its endpoint", (spec, env, adapter, apiKey, baseURL) => {
    expect(parseModelSpec(spec, env)).toMatchObject({ adapter, apiKey, baseURL, model: spec.slice(spec.indexOf(":") + 1) });
  });

  it("keeps colons after the first one in the model name", () => {
    expect(parseModelSpec("ollama:qwen2.5:7b", {})).toMatchObject({ provider: "ollama", model: "qwen2.5:7b" });
  });

  it("takes base URL overrides from the environment, ignoring empty ones", () => {
    expect(parseModelSpec("ollama:llama3", { OLLAMA_BASE_URL: "http://gpu-box:11434/v1" }).baseURL).toBe("http://gpu-box:11434/v1");
    expect(parseModelSpec("openai:gpt-4o", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "" }).baseURL).toBe("https://api.openai.com/v1");
  });

  it("names the unknown provider and the accepted ones", () => {
    expect(() => parseModelSpec("foo:bar", {})).toThrow(
      'Unknown model provider "foo" in "foo:bar"; use one of: openai, dashscope, deepseek, anthropic, ollama',
    );
  });

  it("explains that scripted:demo is the command line's demo and names the library's scripted models", () => {
    expect(() => parseModelSpec("scripted:demo", {})).toThrow(/command line's offline demo[\s\S]*scriptedModel\(turns\) or reactiveModel\(reply\)/);
  });

  it.each(["gpt-4o", "openai:", ":gpt-4o", ""])("rejects %j, saying what a spec looks like", (spec) => {
    expect(() => parseModelSpec(spec, {})).toThrow(/should be "provider:model", e\.g\. "openai:gpt-4o-mini"; providers: openai, /);
  });

  it("says which variable to set when a key is missing", () => {
    expect(() => parseModelSpec("deepseek:deepseek-chat", { DEEPSEEK_API_KEY: "" })).toThrow(
      'Model "deepseek:deepseek-chat" needs an API key: set DEEPSEEK_API_KEY in the environment.',
    );
  });
});

describe("resolveModel", () => {
  const completion = {
    id: "c",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content: "pong" }, finish_reason: "stop" }],
  };

  it("builds an OpenAI-compatible model that calls the configured endpoint with the key", async () => {
    server = await startTestServer((res) => sendJson(res, 200, completion));
    const model = resolveModel("dashscope:qwen-max", {
      env: { DASHSCOPE_API_KEY: "k-dashscope-123", DASHSCOPE_BASE_URL: `${server.url}/compatible-mode/v1` },
    });
    expect(model.id).toBe("dashscope:qwen-max");
    expect((await model.generate(ask)).message.content).toBe("pong");
    const sent = server.requests[0]!;
    expect(sent.path).toBe("/compatible-mode/v1/chat/completions");
    expect(sent.headers.authorization).toBe("Bearer k-dashscope-123");
    expect(sent.body.model).toBe("qwen-max");
  });

  it("builds an Anthropic model for anthropic: specs", async () => {
    server = await startTestServer((res) =>
      sendJson(res, 200, {
        id: "m",
        type: "message",
        role: "assistant",
        model: "claude-x",
        content: [{ type: "text", text: "pong" }],
        stop_reason: "end_turn",
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    );
    const model = resolveModel("anthropic:claude-x", { env: { ANTHROPIC_API_KEY: "k-anthropic-123", ANTHROPIC_BASE_URL: server.url } });
    expect(model.id).toBe("anthropic:claude-x");
    expect((await model.generate(ask)).message.content).toBe("pong");
    expect(server.requests[0]!.path).toBe("/v1/messages");
  });

  it("needs no key for ollama and passes the retry options on", async () => {
    server = await startTestServer((res) => sendJson(res, 503, { error: { message: "loading model" } }));
    const model = resolveModel("ollama:qwen2.5", { env: { OLLAMA_BASE_URL: `${server.url}/v1` }, maxRetries: 1, retryBaseDelayMs: 1 });
    await expect(model.generate(ask)).rejects.toThrow('ollama model "qwen2.5" failed after 2 attempts (HTTP 503): loading model');
  });
});
