import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../core/agent.js";
import type { AgentEvent } from "../core/events.js";
import type { ChatModel } from "../core/model.js";
import { defineTool } from "../core/tool.js";
import { anthropicModel } from "./anthropic.js";
import { openAICompatibleModel } from "./openai-compatible.js";
import { inTurn, openSse, startTestServer, type SseEvent, type TestServer } from "./test-support/http-server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** How one provider writes a streamed turn: what opens it, a piece of text, a tool call's start, what closes it. */
type Wire = {
  name: string;
  model(url: string): ChatModel;
  open: SseEvent[];
  text(piece: string): SseEvent;
  /** `start` announces the call; `rest` carries its arguments. */
  toolCall(id: string, name: string, args: string): { start: SseEvent[]; rest: SseEvent[] };
  close(stop: "text" | "tool"): SseEvent[];
};

const openAIChunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
  data: { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-test", choices: [{ index: 0, delta, finish_reason: finish }] },
});
const named = (data: Record<string, unknown>): SseEvent => ({ event: String(data["type"]), data });

const wires: Wire[] = [
  {
    name: "OpenAI-compatible",
    model: (url) => openAICompatibleModel({ model: "gpt-test", apiKey: "k", baseURL: url, maxRetries: 0 }),
    open: [],
    text: (piece) => openAIChunk({ content: piece }),
    toolCall: (id, name, args) => ({
      start: [openAIChunk({ tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }] })],
      rest: [openAIChunk({ tool_calls: [{ index: 0, function: { arguments: args } }] })],
    }),
    close: (stop) => [
      openAIChunk({}, stop === "tool" ? "tool_calls" : "stop"),
      { data: { id: "c", object: "chat.completion.chunk", created: 1, model: "gpt-test", choices: [], usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 } } },
      { data: "[DONE]" },
    ],
  },
  {
    name: "Anthropic",
    model: (url) => anthropicModel({ model: "claude-test", apiKey: "k", baseURL: url, maxRetries: 0 }),
    open: [
      named({
        type: "message_start",
        message: { id: "m", type: "message", role: "assistant", model: "claude-test", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } },
      }),
      named({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    ],
    text: (piece) => named({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } }),
    toolCall: (id, name, args) => ({
      start: [
        named({ type: "content_block_stop", index: 0 }),
        named({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id, name, input: {} } }),
      ],
      rest: [named({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: args } })],
    }),
    close: (stop) => [
      named({ type: "content_block_stop", index: stop === "tool" ? 1 : 0 }),
      named({ type: "message_delta", delta: { stop_reason: stop === "tool" ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 7 } }),
      named({ type: "message_stop" }),
    ],
  },
];

/** A promise the test settles from outside: the server waits on it while it holds back the rest of a stream. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const closedOf = (res: ServerResponse) => new Promise<void>((resolve) => res.on("close", () => resolve()));

describe.each(wires)("an agent over the $name adapter", (wire) => {
  it("yields text deltas while the model is still writing, and they add up to the stored answer", async () => {
    const pieces = ["The answer ", "is ", "forty", "-two."];
    const held = gate();
    let stillWriting = true;
    server = await startTestServer(async (res) => {
      const sse = openSse(res);
      sse.send([...wire.open, ...pieces.slice(0, -1).map(wire.text)]);
      // The last piece waits until the test has seen a delta: a buffered answer could never get there.
      await held.opened;
      stillWriting = false;
      sse.send([wire.text(pieces.at(-1) ?? ""), ...wire.close("text")]);
      res.end();
    });
    const agent = new Agent({ name: "writer", model: wire.model(server.url) });
    const events: AgentEvent[] = [];
    let deltaWhileWriting = false;
    for await (const event of agent.stream("What is the answer?")) {
      events.push(event);
      if (event.type === "text-delta") {
        deltaWhileWriting ||= stillWriting;
        held.open();
      }
    }
    expect(deltaWhileWriting).toBe(true);
    const deltas = events.filter((e): e is Extract<AgentEvent, { type: "text-delta" }> => e.type === "text-delta");
    const end = events.find((e): e is Extract<AgentEvent, { type: "model-end" }> => e.type === "model-end");
    expect(events.indexOf(deltas[0]!)).toBeLessThan(events.indexOf(end!));
    expect(deltas.every((d) => d.step === 1)).toBe(true);
    expect(deltas.map((d) => d.text).join("")).toBe("The answer is forty-two.");
    expect(end).toMatchObject({ message: { content: "The answer is forty-two." }, usage: { inputTokens: 12, outputTokens: 7 } });
    expect(agent.memory.at(-1)).toEqual({ role: "assistant", content: "The answer is forty-two." });
  });

  it("announces a tool call as it begins, before its arguments are complete", async () => {
    const held = gate();
    const weather = defineTool({ name: "weather", description: "Weather.", parameters: z.object({ city: z.string() }), execute: () => "sunny" });
    server = await startTestServer(
      inTurn(
        async (res) => {
          const sse = openSse(res);
          const { start, rest } = wire.toolCall("call_9", "weather", '{"city":"Oslo"}');
          sse.send([...wire.open, wire.text("Checking."), ...start]);
          // The arguments wait until the test has seen the call begin.
          await held.opened;
          sse.send([...rest, ...wire.close("tool")]);
          res.end();
        },
        (res) => {
          openSse(res).send([...wire.open, wire.text("Sunny."), ...wire.close("text")]);
          res.end();
        },
      ),
    );
    const agent = new Agent({ model: wire.model(server.url), tools: [weather] });
    const seen: AgentEvent[] = [];
    for await (const event of agent.stream("Weather in Oslo?")) {
      seen.push(event);
      if (event.type === "tool-call-start") held.open();
    }
    const types = seen.map((e) => e.type);
    expect(types.indexOf("tool-call-start")).toBeLessThan(types.indexOf("model-end"));
    expect(seen.find((e) => e.type === "tool-call-start")).toMatchObject({ step: 1, callId: "call_9", name: "weather" });
    expect(seen.find((e) => e.type === "tool-end")).toMatchObject({ call: { id: "call_9", arguments: '{"city":"Oslo"}' } });
    expect(seen.at(-1)).toMatchObject({ type: "run-end", text: "Sunny." });
  });

  it("stops at once when aborted mid-stream, closing the request and storing no partial answer", async () => {
    let closed: Promise<void> | undefined;
    server = await startTestServer((res) => {
      closed = closedOf(res);
      // Writes a little, then never finishes: only the abort can end this call.
      openSse(res).send([...wire.open, wire.text("I will never fin")]);
    });
    const agent = new Agent({ model: wire.model(server.url) });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    for await (const event of agent.stream("Go on forever.", { signal: controller.signal })) {
      events.push(event);
      if (event.type === "text-delta") controller.abort();
    }
    await closed;
    const afterAbort = events.slice(events.findIndex((e) => e.type === "text-delta") + 1);
    expect(afterAbort.map((e) => e.type)).toEqual(["run-end"]);
    expect(afterAbort[0]).toMatchObject({ stopReason: "aborted" });
    expect(agent.memory).toEqual([{ role: "user", content: "Go on forever." }]);
  });
});
