import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../models/scripted.js";
import { Agent } from "./agent.js";
import type { AgentEvent } from "./events.js";
import type { Plugin } from "./plugin.js";
import { defineTool } from "./tool.js";

/** A tool that runs a sub-agent under the calling run and forwards the sub-agent's events to the caller's plugin host. */
function delegating(forward: (event: AgentEvent) => void) {
  return defineTool({
    name: "delegate",
    description: "Hands the question to a helper.",
    parameters: z.object({ question: z.string() }),
    execute: async ({ question }, ctx) => {
      const helper = new Agent({ name: "helper", model: scriptedModel(["Helped."]) });
      helper.on(forward);
      const parent = { runId: ctx.runId ?? "", agent: ctx.agentName ?? "", ...(ctx.toolCallId ? { toolCallId: ctx.toolCallId } : {}) };
      return (await helper.run(question, { parent })).text;
    },
  });
}

describe("events of nested runs", () => {
  it("stamps every event of a run with that run's id, a new one per run", async () => {
    const agent = new Agent({ model: scriptedModel(["one", "two"]) });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    await agent.run("a");
    await agent.run("b");
    const ids = events.map((e) => e.runId);
    expect(ids.every((id) => typeof id === "string" && id.length > 0)).toBe(true);
    const runs = [...new Set(ids)];
    expect(runs).toHaveLength(2);
    expect(events.filter((e) => e.type === "run-start").map((e) => e.runId)).toEqual(runs);
  });

  it("carries the parent a run was given on each of its events and gives tools the run's id", async () => {
    const seen: { runId?: string | undefined }[] = [];
    const probe = defineTool({ name: "probe", description: "p", parameters: z.object({}), execute: (_, ctx) => void seen.push({ runId: ctx.runId }) });
    const agent = new Agent({ name: "worker", model: scriptedModel([{ toolCalls: [{ name: "probe", arguments: {} }] }, "done"]), tools: [probe] });
    const parent = { runId: "outer-run", agent: "planner", stepId: "2" };
    const events: AgentEvent[] = [];
    for await (const event of agent.stream("go", { parent })) events.push(event);
    expect(events.every((e) => e.parent?.runId === "outer-run" && e.parent.stepId === "2")).toBe(true);
    expect(seen).toEqual([{ runId: events[0]?.runId }]);
  });

  it("forwards a sub-agent's events unchanged to the caller's listeners, but not to its plugins unless they ask", async () => {
    const own: AgentEvent[] = [];
    const all: AgentEvent[] = [];
    let forward: (event: AgentEvent) => void = () => {};
    const observer: Plugin = {
      name: "observer",
      attach(host) {
        host.on((e) => own.push(e));
        host.on((e) => all.push(e), { nested: true });
        forward = (event) => host.emit(event);
      },
    };
    const model = scriptedModel([{ toolCalls: [{ name: "delegate", arguments: { question: "help?" }, id: "call_d" }] }, "Thanks."]);
    const agent = new Agent({ name: "boss", model, tools: [delegating((e) => forward(e))], plugins: [observer] });
    const streamed: AgentEvent[] = [];
    for await (const event of agent.stream("Ask the helper.")) streamed.push(event);

    const bossRun = streamed[0]?.runId;
    const helperEvents = streamed.filter((e) => e.agent === "helper");
    expect(helperEvents.map((e) => e.type)).toEqual(["run-start", "model-start", "text-delta", "model-end", "run-end"]);
    expect(helperEvents.every((e) => e.runId !== bossRun && e.parent?.runId === bossRun && e.parent?.toolCallId === "call_d")).toBe(true);
    // The helper's events sit between the delegate call's start and end.
    const types = streamed.map((e) => `${e.agent}:${e.type}`);
    expect(types.indexOf("helper:run-start")).toBeGreaterThan(types.indexOf("boss:tool-start"));
    expect(types.indexOf("helper:run-end")).toBeLessThan(types.indexOf("boss:tool-end"));
    expect(own.some((e) => e.agent === "helper")).toBe(false);
    expect(all.filter((e) => e.agent === "helper")).toHaveLength(5);
  });
});
