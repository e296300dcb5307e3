import { describe, expect, it } from "vitest";
import { Agent } from "./agent.js";
import { addUsage, type ChatModel, type ModelRequest } from "./model.js";
import type { Plugin } from "./plugin.js";

describe("a model request", () => {
  it("says where the ephemeral tail starts: after the system prompt and memory, at the plugins' messages", async () => {
    const requests: ModelRequest[] = [];
    const model: ChatModel = {
      id: "recorder",
      async generate(req) {
        requests.push(req);
        return requests.length === 1
          ? { message: { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "nothing", arguments: "{}" }] } }
          : { message: { role: "assistant", content: "done" } };
      },
    };
    const hint: Plugin = { name: "hint", beforeModel: () => [{ role: "user", content: "<hint>stay on task</hint>" }] };
    const agent = new Agent({ model, systemPrompt: "Be brief.", plugins: [hint] });
    await agent.run("Go.");
    expect(requests.map((req) => req.ephemeralFrom)).toEqual([2, 4]);
    for (const req of requests) {
      expect(req.messages.slice(req.ephemeralFrom)).toEqual([{ role: "user", content: "<hint>stay on task</hint>" }]);
    }
  });
});

describe("addUsage", () => {
  it("adds cache counts once any provider reported them, and leaves them out otherwise", () => {
    expect(addUsage({ inputTokens: 1, outputTokens: 2 }, { inputTokens: 3, outputTokens: 4 })).toEqual({ inputTokens: 4, outputTokens: 6 });
    expect(addUsage({ inputTokens: 10, outputTokens: 1 }, { inputTokens: 20, outputTokens: 2, cacheReadInputTokens: 15, cacheWriteInputTokens: 5 })).toEqual({
      inputTokens: 30,
      outputTokens: 3,
      cacheReadInputTokens: 15,
      cacheWriteInputTokens: 5,
    });
  });
});
