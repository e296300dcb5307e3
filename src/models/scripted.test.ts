import { describe, expect, it } from "vitest";
import { scriptedModel } from "./scripted.js";

describe("scriptedModel", () => {
  it("records a deep copy of each request and hands that copy to function turns", async () => {
    const model = scriptedModel([(req) => `saw ${req.messages.length} message(s)`]);
    const messages = [{ role: "user" as const, content: "hi" }];
    const response = await model.generate({ messages, tools: [] });
    messages[0]!.content = "changed later";
    expect(response.message).toEqual({ role: "assistant", content: "saw 1 message(s)" });
    expect(model.requests[0]?.messages[0]?.content).toBe("hi");
  });

  it("sends string arguments verbatim and JSON-encodes anything else", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "a", arguments: '{"broken": ' }, { name: "b", arguments: { x: 1 }, id: "mine" }] },
    ]);
    const { message } = await model.generate({ messages: [], tools: [] });
    expect(message.toolCalls).toEqual([
      { id: "call_1_1", name: "a", arguments: '{"broken": ' },
      { id: "mine", name: "b", arguments: '{"x":1}' },
    ]);
  });

  it("fails clearly when called past its last turn", async () => {
    const model = scriptedModel(["only"]);
    await model.generate({ messages: [], tools: [] });
    await expect(model.generate({ messages: [], tools: [] })).rejects.toThrow(
      "scriptedModel has 1 turn(s) but was called 2 times; add a turn for call 2.",
    );
  });

  it("streams text deltas, then the whole response once", async () => {
    const model = scriptedModel(["abcdefghij"], { streamChunkSize: 4 });
    const parts = [];
    for await (const part of model.stream({ messages: [], tools: [] })) parts.push(part);
    expect(parts.slice(0, 3)).toEqual([
      { type: "text-delta", text: "abcd" },
      { type: "text-delta", text: "efgh" },
      { type: "text-delta", text: "ij" },
    ]);
    expect(parts[3]).toMatchObject({ type: "response", response: { message: { content: "abcdefghij" } } });
  });
});
