import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { defineTool } from "../../core/tool.js";
import { scriptedModel } from "../../models/scripted.js";
import { LLMCompiler } from "./llm-compiler/llm-compiler.js";
import { PlanAndExecute } from "./plan-and-execute/plan-and-execute.js";
import { PlanTool } from "./plan-tool/plan-tool.js";

const lookup = defineTool({
  name: "lookup",
  description: "Look a fact up.",
  parameters: z.object({ query: z.string() }),
  readOnly: true,
  execute: ({ query }) => `<${query}>`,
});

const byType = <T extends AgentEvent["type"]>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

describe("workflow events nest", () => {
  it("plan-and-execute reports its planner's calls and forwards each executor's events under the step", async () => {
    const events: AgentEvent[] = [];
    const workflow = new PlanAndExecute({
      model: scriptedModel(['{"steps": ["Look up the capital"]}', '{"answer": "Paris"}']),
      executorModel: scriptedModel([{ toolCalls: [{ name: "lookup", arguments: { query: "capital" } }] }, "Paris."]),
      tools: [lookup],
      onEvent: (e) => events.push(e),
    });
    await workflow.run("What is the capital?");

    const runId = events[0]?.runId;
    expect(events[0]).toMatchObject({ type: "workflow-planning-started", agent: "plan-and-execute", round: 1 });
    const planner = events.filter((e) => e.agent === "plan-and-execute" && (e.type === "model-start" || e.type === "model-end"));
    expect(planner.map((e) => e.type)).toEqual(["model-start", "model-end", "model-start", "model-end"]);
    expect(byType(events, "model-end").find((e) => e.agent === "plan-and-execute")).toMatchObject({
      runId,
      step: 1,
      model: "scripted",
      usage: { inputTokens: expect.any(Number) as number },
      durationMs: expect.any(Number) as number,
    });
    const executor = events.filter((e) => e.agent === "step-1");
    expect(executor.map((e) => e.type)).toContain("tool-end");
    expect(executor.every((e) => e.runId !== runId && e.parent?.runId === runId && e.parent?.stepId === "1")).toBe(true);
    // The executor runs inside its step.
    const at = (predicate: (e: AgentEvent) => boolean) => events.findIndex(predicate);
    expect(at((e) => e.type === "workflow-step-start")).toBeLessThan(at((e) => e.agent === "step-1"));
    expect(at((e) => e.type === "workflow-step-end")).toBeGreaterThan(at((e) => e.agent === "step-1" && e.type === "run-end"));
  });

  it("the compiler runs each task's tool between tool-start and tool-end events of its run", async () => {
    const events: AgentEvent[] = [];
    const plan = `${JSON.stringify({ id: 1, tool: "lookup", args: { query: "a" } })}\n${JSON.stringify({ id: 2, tool: "lookup", args: { query: "b" } })}\n`;
    const compiler = new LLMCompiler({
      model: scriptedModel([plan]),
      joinerModel: scriptedModel([JSON.stringify({ action: "finish", answer: "done" })]),
      tools: [lookup],
      onEvent: (e) => events.push(e),
    });
    await compiler.run("Look up a and b");
    const runId = events[0]?.runId;
    const ends = byType(events, "tool-end");
    expect(ends.map((e) => [e.call.name, e.call.arguments, e.result.text])).toEqual(
      expect.arrayContaining([
        ["lookup", '{"query":"a"}', "<a>"],
        ["lookup", '{"query":"b"}', "<b>"],
      ]),
    );
    expect([...byType(events, "tool-start"), ...ends].every((e) => e.runId === runId && e.agent === "llm-compiler")).toBe(true);
    expect(byType(events, "workflow-planning-started")).toHaveLength(1);
    expect(byType(events, "model-end").map((e) => e.step)).toEqual([1, 2]);
  });

  it("the plan tool's planner and subtasks nest under the tool call that started them, and reach the agent's stream", async () => {
    const plan = new PlanTool({
      model: scriptedModel(['{"subtasks": ["Look up a"]}']),
      executorModel: scriptedModel([{ toolCalls: [{ name: "lookup", arguments: { query: "a" } }] }, "Found a."]),
      tools: [lookup],
    });
    const model = scriptedModel([{ toolCalls: [{ name: "plan", arguments: { task: "Find a" }, id: "call_plan" }] }, "All done."]);
    const agent = new Agent({ name: "main", model, plugins: [plan] });
    const events: AgentEvent[] = [];
    for await (const event of agent.stream("Find a.")) events.push(event);

    const mainRun = events[0]?.runId;
    const workflow = events.filter((e) => e.agent === "plan-tool");
    const workflowRun = workflow[0]?.runId;
    expect(workflow[0]?.type).toBe("workflow-planning-started");
    expect(workflow.every((e) => e.runId === workflowRun && e.parent?.runId === mainRun && e.parent?.toolCallId === "call_plan")).toBe(true);
    const planner = events.filter((e) => e.agent === "planner");
    expect(planner.map((e) => e.type)).toContain("model-end");
    expect(planner.every((e) => e.parent?.runId === workflowRun && e.parent?.stepId === undefined)).toBe(true);
    const subtask = events.filter((e) => e.agent === "subtask-1");
    expect(byType(subtask, "tool-end").map((e) => e.result.text)).toEqual(["<a>"]);
    expect(subtask.every((e) => e.parent?.runId === workflowRun && e.parent?.stepId === "1")).toBe(true);
  });
});
