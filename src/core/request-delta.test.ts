import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../models/scripted.js";
import { Agent } from "./agent.js";
import type { AgentEvent } from "./events.js";
import type { Message } from "./messages.js";
import type { ChatModel } from "./model.js";
import type { Plugin } from "./plugin.js";
import { applyRequestDelta, RequestDeltas } from "./request-delta.js";
import { defineTool } from "./tool.js";

const echo = defineTool({ name: "echo", description: "Echoes.", parameters: z.object({ text: z.string() }), execute: ({ text }) => `echo: ${text}` });
const call = (text: string) => ({ toolCalls: [{ name: "echo", arguments: { text } }] });

/** Replays the model-start events of one run into the requests they describe. */
function rebuild(events: AgentEvent[]): { messages: Message[]; ephemeralFrom: number | undefined }[] {
  let previous: Message[] = [];
  return events.flatMap((event) => {
    if (event.type !== "model-start" || !event.request) return [];
    previous = applyRequestDelta(previous, event.request);
    return [{ messages: previous, ephemeralFrom: event.request.ephemeralFrom }];
  });
}

describe("model-start's request delta", () => {
  it("rebuilds exactly what the model received, hints and notes included, across a memory rewrite that shrinks the prefix", async () => {
    const model = scriptedModel([call("one"), call("two"), call("three"), call("four"), "done"]);
    const hint: Plugin = { name: "hint", beforeModel: (ctx) => [{ role: "user", content: `<hint>step ${ctx.step}</hint>` }] };
    // Folding's shape: at step 4 the middle of memory becomes one summary, so the common prefix shrinks.
    const fold: Plugin = {
      name: "fold",
      rewriteMemory: (ctx) => (ctx.step === 4 ? [ctx.memory[0]!, { role: "user", content: "[summary of steps 1-2]" }, ...ctx.memory.slice(5)] : undefined),
    };
    const tails: (number | undefined)[] = [];
    const recording: ChatModel = { id: model.id, generate: (req) => (tails.push(req.ephemeralFrom), model.generate(req)) };
    const agent = new Agent({ model: recording, systemPrompt: "Be brief.", tools: [echo], plugins: [hint, fold] });
    const events: AgentEvent[] = [];
    agent.on((event) => events.push(event));
    await agent.run("Go.");

    const rebuilt = rebuild(events);
    expect(rebuilt).toHaveLength(5);
    rebuilt.forEach((request, i) => {
      expect(request.messages).toEqual(model.requests[i]!.messages);
      expect(request.ephemeralFrom).toBe(tails[i]);
    });
    const starts = events.filter((event) => event.type === "model-start");
    expect(starts.map((event) => event.request?.kept)).toEqual([0, 2, 4, 2, 5]);
    expect(rebuilt[3]!.messages.slice(rebuilt[3]!.ephemeralFrom)).toEqual([{ role: "user", content: "<hint>step 4</hint>" }]);
  });

  it("logs each message about once in a long run, not the whole history at every call", async () => {
    const steps = 200;
    const model = scriptedModel([...Array.from({ length: steps - 1 }, (_, i) => call(`n${i}`)), "done"]);
    const hint: Plugin = { name: "hint", beforeModel: () => [{ role: "user", content: "<hint>keep going</hint>" }] };
    const agent = new Agent({ model, tools: [echo], plugins: [hint], maxSteps: steps });
    const events: AgentEvent[] = [];
    agent.on((event) => events.push(event));
    await agent.run("Go.");
    const logged = events.reduce((sum, event) => sum + (event.type === "model-start" ? (event.request?.added.length ?? 0) : 0), 0);
    const final = model.requests.at(-1)!.messages.length;
    // Each step adds its assistant turn and tool result once, plus the one-message hint.
    expect(logged).toBeLessThanOrEqual(final + 2 * steps);
    expect(rebuild(events).at(-1)!.messages).toEqual(model.requests.at(-1)!.messages);
  });

  it("starts whole after a reset, and refuses a delta that keeps more than there was", () => {
    const deltas = new RequestDeltas();
    const first: Message[] = [{ role: "user", content: "a" }];
    expect(deltas.next(first).kept).toBe(0);
    expect(deltas.next([...first, { role: "assistant", content: "b" }]).kept).toBe(1);
    deltas.reset();
    expect(deltas.next(first)).toEqual({ kept: 0, added: first });
    expect(() => applyRequestDelta([], { kept: 2, added: [] })).toThrow(/keeps 2 messages of a previous request that has 0/);
  });
});
