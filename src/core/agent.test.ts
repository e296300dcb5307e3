import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../models/scripted.js";
import { Agent } from "./agent.js";
import type { AgentEvent } from "./events.js";
import type { ChatModel } from "./model.js";
import type { Plugin } from "./plugin.js";
import { defineTool } from "./tool.js";

const weather = defineTool({
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: z.object({ city: z.string() }),
  readOnly: true,
  execute: ({ city }) => `Sunny in ${city}`,
});


describe("Agent loop", () => {
  it("runs a two-step tool run: call a tool, then answer from its result", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
      (req) => `It is ${String(req.messages.at(-1)?.content).toLowerCase()}.`,
    ]);
    const agent = new Agent({ model, tools: [weather], systemPrompt: "Be brief." });
    const result = await agent.run("Weather in Paris?");

    expect(result).toMatchObject({ text: "It is sunny in paris.", steps: 2, stopReason: "final" });
    expect(model.requests[0]?.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Paris?" },
    ]);
    expect(model.requests[0]?.tools).toEqual([
      { name: "get_weather", description: "Current weather for a city.", parameters: weather.parameters },
    ]);
    expect(agent.memory.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(agent.memory[2]).toEqual({ role: "tool", content: "Sunny in Paris", toolCallId: "call_1_1", name: "get_weather" });
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage).toEqual(agent.usage);
  });

  it("runs one turn's tool calls concurrently and appends results in call order", async () => {
    let running = 0;
    let peak = 0;
    // Each call waits until all three run at once, then they finish last-first: concurrency and
    // order are shown by events, with no timer to lose a race on a busy machine.
    let allRunning!: () => void;
    const together = new Promise<void>((resolve) => (allRunning = resolve));
    const finishedLabels: string[] = [];
    const slow = defineTool({
      name: "slow",
      description: "",
      parameters: z.object({ after: z.string(), label: z.string() }),
      execute: async ({ after, label }) => {
        running++;
        peak = Math.max(peak, running);
        if (running === 3) allRunning();
        await together;
        while (after && !finishedLabels.includes(after)) await new Promise((resolve) => setImmediate(resolve));
        finishedLabels.push(label);
        running--;
        return label;
      },
    });
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "slow", arguments: { after: "third", label: "first" } },
          { name: "slow", arguments: { after: "", label: "second" } },
          { name: "slow", arguments: { after: "second", label: "third" } },
        ],
      },
      "done",
    ]);
    const agent = new Agent({ model, tools: [slow] });
    await agent.run("go");
    expect(peak).toBe(3);
    expect(finishedLabels).toEqual(["second", "third", "first"]);
    expect(agent.memory.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["first", "second", "third"]);
  });

  it("stops at maxSteps with a result, not an exception", async () => {
    const loop = Array.from({ length: 5 }, () => ({ toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] }));
    const agent = new Agent({ model: scriptedModel(loop), tools: [weather], maxSteps: 3 });
    const result = await agent.run("loop forever");
    expect(result.stopReason).toBe("max-steps");
    expect(result.steps).toBe(3);
    expect(agent.memory.filter((m) => m.role === "tool")).toHaveLength(3);
  });

  it("aborts during a model call; no model call follows", async () => {
    const scripted = scriptedModel(["never seen", "nor this"], { latencyMs: 60_000 });
    const controller = new AbortController();
    // Aborts once the model has the request (an event, not a timer that could fire before the call).
    const model: ChatModel & { requests: unknown[] } = {
      id: scripted.id,
      requests: scripted.requests,
      generate: (req) => {
        const answer = scripted.generate(req);
        controller.abort();
        return answer;
      },
    };
    const agent = new Agent({ model });
    const result = await agent.run("hello", { signal: controller.signal });
    expect(result.stopReason).toBe("aborted");
    expect(model.requests).toHaveLength(1);
    expect(agent.memory).toEqual([{ role: "user", content: "hello" }]);
  });

  it("aborts during a tool call, keeping memory replayable", async () => {
    const controller = new AbortController();
    const hang = defineTool({
      name: "hang",
      description: "",
      parameters: z.object({}),
      execute: () => {
        controller.abort();
        return new Promise(() => undefined);
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "hang", arguments: {} }] }, "unreachable"]);
    const agent = new Agent({ model, tools: [hang] });
    const result = await agent.run("go", { signal: controller.signal });
    expect(result.stopReason).toBe("aborted");
    expect(model.requests).toHaveLength(1);
    const last = agent.memory.at(-1);
    expect(last).toMatchObject({ role: "tool", toolCallId: "call_1_1" });
    expect(last?.content).toMatch(/aborted/);
  });

  it("stopAfterStep fired during a model call lets the step finish (its tool calls too), then stops as aborted before the next model call", async () => {
    const stop = new AbortController();
    const scripted = scriptedModel([{ toolCalls: [{ name: "get_weather", arguments: { city: "Oslo" } }] }, "unreachable"]);
    const model: ChatModel = {
      id: scripted.id,
      generate: (req) => {
        stop.abort();
        return scripted.generate(req);
      },
    };
    const agent = new Agent({ model, tools: [weather] });
    const result = await agent.run("Weather in Oslo?", { stopAfterStep: stop.signal });
    expect(result).toMatchObject({ stopReason: "aborted", steps: 1 });
    expect(scripted.requests).toHaveLength(1);
    expect(agent.memory.at(-1)).toMatchObject({ role: "tool", content: "Sunny in Oslo" });
    // The run goes on from there as any stopped run does.
    expect(await agent.continue()).toMatchObject({ stopReason: "final", text: "unreachable" });
  });

  it("stopAfterStep fired during a tool call lets the call finish and keeps its result", async () => {
    const stop = new AbortController();
    const slow = defineTool({
      name: "slow",
      description: "",
      parameters: z.object({}),
      execute: () => {
        stop.abort();
        return "done slowly";
      },
    });
    const model = scriptedModel([{ toolCalls: [{ name: "slow", arguments: {} }] }, "unreachable"]);
    const agent = new Agent({ model, tools: [slow] });
    const result = await agent.run("go", { stopAfterStep: stop.signal });
    expect(result).toMatchObject({ stopReason: "aborted", steps: 1 });
    expect(model.requests).toHaveLength(1);
    expect(agent.memory.at(-1)).toMatchObject({ role: "tool", content: "done slowly" });
  });

  it("does not start a run whose signal already fired", async () => {
    const model = scriptedModel(["hi"]);
    const result = await new Agent({ model }).run("x", { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ stopReason: "aborted", steps: 0 });
    expect(model.requests).toHaveLength(0);
  });

  it("lets the model correct bad arguments after an error result naming them", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "get_weather", arguments: '{"town": "Rome"}' }] },
      (req) => {
        const error = req.messages.at(-1);
        expect(error?.content).toMatch(/- city: .*expected string/);
        return { toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] };
      },
      "Sunny in Rome.",
    ]);
    const agent = new Agent({ model, tools: [weather] });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    const result = await agent.run("Rome?");
    expect(result.stopReason).toBe("final");
    const ends = events.filter((e) => e.type === "tool-end");
    expect(ends.map((e) => e.result.isError)).toEqual([true, false]);
  });

  it("answers a throwing tool and an unknown tool with error results and goes on", async () => {
    const broken = defineTool({
      name: "broken",
      description: "",
      parameters: z.object({}),
      execute: () => {
        throw new Error("backend down");
      },
    });
    const model = scriptedModel([
      { toolCalls: [{ name: "broken", arguments: {} }, { name: "nope", arguments: {} }] },
      "I could not do it.",
    ]);
    const agent = new Agent({ model, tools: [broken, weather] });
    const result = await agent.run("try");
    expect(result.stopReason).toBe("final");
    const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toEqual([
      'Tool "broken" failed: backend down',
      'Unknown tool "nope". Available tools: broken, get_weather.',
    ]);
  });

  it("quotes a 100,000-character unknown tool name by its start only, saying how much was left out", async () => {
    const model = scriptedModel([{ toolCalls: [{ name: "n".repeat(100_000), arguments: {} }] }, "done"]);
    const agent = new Agent({ model, tools: [weather] });
    await agent.run("try");
    const result = agent.memory.find((m) => m.role === "tool")?.content ?? "";
    expect(result).toBe(`Unknown tool "${"n".repeat(64)}"… (99936 more characters left out). Available tools: get_weather.`);
  });

  it("round-trips its state, plugins included, as plain JSON", async () => {
    let counter = 0;
    const counting: Plugin = {
      name: "counter",
      afterTool: () => {
        counter++;
      },
      saveState: () => ({ counter }),
      loadState: (state) => {
        counter = (state as { counter: number }).counter;
      },
    };
    const agent = new Agent({
      name: "saver",
      model: scriptedModel([{ toolCalls: [{ name: "get_weather", arguments: { city: "Lima" } }] }, "ok"]),
      tools: [weather],
      plugins: [counting],
    });
    await agent.run("Lima?");
    const saved = JSON.parse(JSON.stringify(agent.saveState()));
    expect(saved).toMatchObject({ version: 1, agent: "saver", plugins: { counter: { counter: 1 } } });

    counter = 99;
    const restored = new Agent({ name: "saver", model: scriptedModel([]), tools: [weather], plugins: [counting] });
    restored.loadState(saved);
    expect(counter).toBe(1);
    expect(restored.memory).toEqual(agent.memory);
    expect(restored.saveState()).toEqual(saved);
    expect(() => restored.loadState({ ...saved, version: 99 })).toThrow(/version 99/);
  });
});

describe("Plugins", () => {
  it("appends ephemeral messages at the tail of each request and never stores them", async () => {
    const hints: Plugin = {
      name: "hints",
      beforeModel: ({ step }) => [{ role: "user", content: `<system-hint>step ${step}</system-hint>` }],
    };
    const model = scriptedModel([{ toolCalls: [{ name: "get_weather", arguments: { city: "Rome" } }] }, "done"]);
    const agent = new Agent({ model, tools: [weather], plugins: [hints] });
    await agent.run("go");
    expect(model.requests.map((r) => r.messages.at(-1)?.content)).toEqual([
      "<system-hint>step 1</system-hint>",
      "<system-hint>step 2</system-hint>",
    ]);
    expect(model.requests[1]?.messages.filter((m) => m.content.includes("system-hint"))).toHaveLength(1);
    expect(agent.memory.some((m) => m.content.includes("system-hint"))).toBe(false);
    expect(JSON.stringify(agent.saveState())).not.toContain("system-hint");
  });

  it("contributes tools and system instructions", async () => {
    const plugin: Plugin = { name: "p", tools: () => [weather], instructions: () => "Plan first." };
    const model = scriptedModel(["ok"]);
    await new Agent({ model, systemPrompt: "Base.", plugins: [plugin] }).run("x");
    expect(model.requests[0]?.messages[0]).toEqual({ role: "system", content: "Base.\n\nPlan first." });
    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(["get_weather"]);
  });

  it("can refuse a call (the model sees an error result) and rewrite another", async () => {
    const ran: string[] = [];
    const echo = defineTool({
      name: "echo",
      description: "",
      parameters: z.object({ text: z.string() }),
      execute: ({ text }) => {
        ran.push(text);
        return text;
      },
    });
    const guard: Plugin = {
      name: "guard",
      afterModel: (ctx) => {
        for (const call of ctx.toolCalls) {
          if (call.arguments.includes("secret")) ctx.refuse(call.id, "Refused: secrets stay secret.");
          if (call.arguments.includes("shout")) ctx.rewrite(call.id, { arguments: '{"text":"SHOUT"}' });
        }
      },
    };
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "echo", arguments: { text: "secret" } },
          { name: "echo", arguments: { text: "shout" } },
        ],
      },
      "ok",
    ]);
    const agent = new Agent({ model, tools: [echo], plugins: [guard] });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    await agent.run("go");
    expect(ran).toEqual(["SHOUT"]);
    const tools = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
    expect(tools).toEqual(["Refused: secrets stay secret.", "SHOUT"]);
    const assistant = agent.memory[1];
    expect(assistant?.role === "assistant" && assistant.toolCalls?.[1]?.arguments).toBe('{"text":"SHOUT"}');
    expect(events.filter((e) => e.type === "tool-end").map((e) => e.refused)).toEqual([true, false]);
  });

  it("can ask for one more turn with an ephemeral note, once per run", async () => {
    const nudge: Plugin = {
      name: "nudge",
      afterModel: (ctx) => {
        if (ctx.toolCalls.length === 0 && ctx.message.content === "") ctx.continueWith("Please answer the user.");
      },
    };
    const model = scriptedModel(["", "", "unused"]);
    const agent = new Agent({ model, plugins: [nudge] });
    const result = await agent.run("hi");
    expect(result).toMatchObject({ stopReason: "final", steps: 2, text: "" });
    expect(model.requests[1]?.messages.at(-1)).toEqual({ role: "user", content: "Please answer the user." });
    expect(agent.memory.some((m) => m.content === "Please answer the user.")).toBe(false);
  });

  it("rejects two tools with one name", () => {
    expect(() => new Agent({ model: scriptedModel([]), tools: [weather, weather] })).toThrow(/Two tools are named "get_weather"/);
  });
});

describe("Events", () => {
  it("streams one run's events in order, ending with run-end", async () => {
    const model = scriptedModel([{ toolCalls: [{ name: "get_weather", arguments: { city: "Quito" } }] }, "Warm."]);
    const agent = new Agent({ name: "streamer", model, tools: [weather] });
    const types: string[] = [];
    let last: AgentEvent | undefined;
    for await (const event of agent.stream("Quito?")) {
      types.push(event.type);
      last = event;
      expect(event.agent).toBe("streamer");
    }
    expect(types).toEqual([
      "run-start",
      "model-start",
      "tool-call-start",
      "model-end",
      "tool-start",
      "tool-end",
      "turn-end",
      "model-start",
      "text-delta",
      "model-end",
      "run-end",
    ]);
    expect(last).toMatchObject({ type: "run-end", stopReason: "final", text: "Warm.", steps: 2 });
  });

  it("surfaces a model failure as run-error and a rejected run", async () => {
    const agent = new Agent({ model: scriptedModel([]) });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    await expect(agent.run("x")).rejects.toThrow(/scriptedModel has 0 turn\(s\) but was called 1 times/);
    expect(events.at(-1)).toMatchObject({ type: "run-error" });
  });

  it("refuses a second run while one is in progress", async () => {
    const agent = new Agent({ model: scriptedModel(["a", "b"], { latencyMs: 20 }) });
    const first = agent.run("one");
    await expect(agent.run("two")).rejects.toThrow(/already running/);
    await first;
  });
});

describe("Memory rewriting", () => {
  it("persists a plugin's replacement memory, applied before the request is built", async () => {
    const squash: Plugin = {
      name: "squash",
      rewriteMemory: ({ memory }) =>
        memory.length >= 3 ? [memory[0]!, { role: "assistant", content: "[earlier work folded]" }] : undefined,
    };
    const model = scriptedModel([{ toolCalls: [{ name: "get_weather", arguments: { city: "Bern" } }] }, "done"]);
    const agent = new Agent({ model, tools: [weather], plugins: [squash] });
    await agent.run("go");
    expect(model.requests[1]?.messages.map((m) => m.content)).toEqual(["go", "[earlier work folded]"]);
    expect(agent.memory.map((m) => m.content)).toEqual(["go", "[earlier work folded]", "done"]);
  });

  it("lets plugins observe the agent's events through their host", async () => {
    const seen: string[] = [];
    const observer: Plugin = { name: "observer", attach: (host) => void host.on((e) => seen.push(e.type)) };
    await new Agent({ model: scriptedModel(["hi"]), plugins: [observer] }).run("x");
    expect(seen).toEqual(["run-start", "model-start", "text-delta", "model-end", "run-end"]);
  });
});

describe("continue", () => {
  it("goes on from a loaded checkpoint without new input", async () => {
    const first = new Agent({
      model: scriptedModel([{ toolCalls: [{ name: "get_weather", arguments: { city: "Kyiv" } }] }]),
      tools: [weather],
      maxSteps: 1,
    });
    const checkpoints: unknown[] = [];
    first.on((e) => {
      if (e.type === "turn-end") checkpoints.push(first.saveState());
    });
    expect((await first.run("Kyiv?")).stopReason).toBe("max-steps");
    expect(checkpoints).toHaveLength(1);

    const model = scriptedModel([(req) => `from ${req.messages.at(-1)?.content}`]);
    const second = new Agent({ model, tools: [weather] });
    second.loadState(checkpoints[0] as ReturnType<Agent["saveState"]>);
    const result = await second.continue();
    expect(result).toMatchObject({ stopReason: "final", text: "from Sunny in Kyiv", steps: 1 });
    expect(second.memory.filter((m) => m.role === "user")).toHaveLength(1);
    expect(await second.continue()).toMatchObject({ stopReason: "final", text: "from Sunny in Kyiv", steps: 0 });
  });

  it("answers calls whose results were never recorded instead of running them again", async () => {
    let runs = 0;
    const counted = defineTool({ name: "counted", description: "", parameters: z.object({}), execute: () => String(++runs) });
    const agent = new Agent({ model: scriptedModel(["recovered"]), tools: [counted] });
    agent.loadState({
      version: 1,
      agent: "agent",
      plugins: {},
      usage: { inputTokens: 0, outputTokens: 0 },
      memory: [
        { role: "user", content: "go" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "counted", arguments: "{}" }] },
      ],
    });
    await agent.continue();
    expect(runs).toBe(0);
    expect(agent.memory[2]).toMatchObject({ role: "tool", toolCallId: "c1" });
    expect(agent.memory[2]?.content).toMatch(/^Interrupted/);
  });
});

describe("close", () => {
  it("closes every plugin that holds something open, even when one fails", async () => {
    const closed: string[] = [];
    const plugins: Plugin[] = [
      { name: "a", close: () => void closed.push("a") },
      { name: "b" },
      {
        name: "c",
        close: async () => {
          closed.push("c");
          throw new Error("pool gone");
        },
      },
    ];
    const agent = new Agent({ model: scriptedModel([]), plugins });
    await expect(agent.close()).rejects.toThrow("1 plugin(s) failed to close");
    expect(closed).toEqual(["a", "c"]);
  });
});

describe("review regressions", () => {
  it("fills a missing call id with one that is unique across runs", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "get_weather", arguments: { city: "A" }, id: "" }] },
      "one",
      { toolCalls: [{ name: "get_weather", arguments: { city: "B" }, id: "" }] },
      "two",
    ]);
    const agent = new Agent({ model, tools: [weather] });
    await agent.run("first");
    await agent.run("second");
    const ids = agent.memory.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.id) : []));
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(ids.every((id) => /^call_\w/.test(id))).toBe(true);
  });

  it("hands out usage as copies, so no caller can change another agent's count", async () => {
    const silent = { id: "silent", generate: async () => ({ message: { role: "assistant" as const, content: "hi" } }) };
    const first = new Agent({ model: silent });
    const result = await first.run("x");
    result.usage.inputTokens = 99;
    first.usage.inputTokens = 99;
    expect(new Agent({ model: silent }).usage).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(first.usage).toEqual({ inputTokens: 0, outputTokens: 0 });
  });

  it("does not spend continueWith's once-per-run allowance on a turn that has tool calls", async () => {
    const nudge: Plugin = { name: "nudge", afterModel: (ctx) => ctx.continueWith("Please answer.") };
    const model = scriptedModel([{ toolCalls: [{ name: "get_weather", arguments: { city: "C" } }] }, "", "answer"]);
    const result = await new Agent({ model, tools: [weather], plugins: [nudge] }).run("go");
    expect(result).toMatchObject({ text: "answer", steps: 3 });
    expect(model.requests[2]?.messages.at(-1)).toEqual({ role: "user", content: "Please answer." });
  });
});
