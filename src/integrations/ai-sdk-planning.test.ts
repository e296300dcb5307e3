import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../core/events.js";
import type { AfterToolContext, Plugin } from "../core/plugin.js";
import { defineTool, ToolError } from "../core/tool.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { todoList } from "../planning/todos/todo-list.js";
import { aiSdkPlanning } from "./ai-sdk-planning.js";

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

function reply(content: LanguageModelV3Content[]): LanguageModelV3GenerateResult {
  const calls = content.some((part) => part.type === "tool-call");
  return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage: USAGE, warnings: [] };
}

function callTool(toolCallId: string, toolName: string, input: unknown): LanguageModelV3Content {
  return { type: "tool-call", toolCallId, toolName, input: JSON.stringify(input) };
}

function lastMessage(call: LanguageModelV3CallOptions | undefined) {
  return call?.prompt.at(-1);
}

/** A counter whose value is recited at the tail of every request, as a plan hint would be. */
function counterPlugin() {
  let count = 0;
  const seen: AfterToolContext[] = [];
  const plugin: Plugin = {
    name: "counter",
    instructions: () => "Bump the counter when asked.",
    tools: () => [
      defineTool({
        name: "bump",
        description: "Add to the counter.",
        parameters: z.object({ by: z.number().int() }),
        execute: ({ by }) => {
          if (by <= 0) throw new ToolError("bump only adds: pass a positive number.");
          count += by;
          return `Counter is ${count}.`;
        },
      }),
    ],
    beforeModel: () => [{ role: "user", content: `<counter>${count}</counter>` }],
    afterTool: (ctx) => void seen.push(ctx),
  };
  return { plugin, seen, count: () => count };
}

describe("aiSdkPlanning inside generateText", () => {
  it("puts the plugin's tail message last in every request and never keeps it in the conversation", async () => {
    const counter = counterPlugin();
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("c1", "bump", { by: 2 })]),
        reply([callTool("c2", "bump", { by: 3 })]),
        reply([{ type: "text", text: "The counter is 5." }]),
      ],
    });
    const planning = aiSdkPlanning([counter.plugin], { system: "You are terse." });
    const result = await generateText({ model, ...planning, prompt: "Bump by 2, then by 3.", stopWhen: stepCountIs(5) });

    expect(result.text).toBe("The counter is 5.");
    expect(counter.count()).toBe(5);
    const calls = model.doGenerateCalls;
    expect(calls).toHaveLength(3);
    expect(calls.map((call) => lastMessage(call))).toEqual(
      [0, 2, 5].map((n) => ({ role: "user", content: [{ type: "text", text: `<counter>${n}</counter>` }] })),
    );
    const hintsInLastCall = JSON.stringify(calls[2]?.prompt).match(/<counter>/g);
    expect(hintsInLastCall).toHaveLength(1);
    expect(calls[0]?.prompt[0]).toEqual({ role: "system", content: "You are terse.\n\nBump the counter when asked." });
    expect(calls[0]?.tools?.map((tool) => tool.name)).toEqual(["bump"]);
  });

  it("shows error results to the model and every outcome to afterTool", async () => {
    const counter = counterPlugin();
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("c1", "bump", { by: -1 }), callTool("c2", "bump", { by: "two" })]),
        reply([{ type: "text", text: "I could not bump it." }]),
      ],
    });
    await generateText({ model, ...aiSdkPlanning([counter.plugin]), prompt: "Bump.", stopWhen: stepCountIs(3) });

    const toolMessage = model.doGenerateCalls[1]?.prompt.find((message) => message.role === "tool");
    expect(toolMessage?.content).toMatchObject([
      { toolCallId: "c1", output: { type: "error-text", value: "bump only adds: pass a positive number." } },
      { toolCallId: "c2", output: { type: "error-text", value: expect.stringMatching(/by/) } },
    ]);
    expect(counter.seen.map((ctx) => [ctx.step, ctx.call.id, ctx.result.isError, ctx.refused])).toEqual([
      [1, "c1", true, false],
      [1, "c2", true, false],
    ]);
    expect(counter.seen[0]?.memory.at(-1)).toMatchObject({ role: "tool", toolCallId: "c2" });
  });

  it("repairs a number sent as text the way a Stepwise agent does", async () => {
    const counter = counterPlugin();
    const model = new MockLanguageModelV3({
      doGenerate: [reply([callTool("c1", "bump", { by: "4" })]), reply([{ type: "text", text: "Done." }])],
    });
    await generateText({ model, ...aiSdkPlanning([counter.plugin]), prompt: "Bump by 4.", stopWhen: stepCountIs(3) });
    expect(counter.count()).toBe(4);
  });

  it("recites the todo list after write_todos and forwards its events", async () => {
    const todos = todoList();
    const events: AgentEvent[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("w1", "write_todos", { todos: [{ content: "Read the logs", status: "in_progress" }] })]),
        reply([{ type: "text", text: "Working on it." }]),
      ],
    });
    const planning = aiSdkPlanning([todos], { agentName: "helper", onEvent: (event) => events.push(event) });
    await generateText({ model, ...planning, prompt: "Triage the logs.", stopWhen: stepCountIs(3) });

    expect(todos.todos).toEqual([{ content: "Read the logs", status: "in_progress" }]);
    expect(lastMessage(model.doGenerateCalls[0])?.role).toBe("user");
    expect(JSON.stringify(lastMessage(model.doGenerateCalls[0]))).not.toContain("<todo-list>");
    expect(JSON.stringify(lastMessage(model.doGenerateCalls[1]))).toContain("in_progress:\\n#1 Read the logs");
    expect(events).toMatchObject([
      { type: "todos-updated", agent: "helper", todos: [{ content: "Read the logs" }] },
      { type: "unit-start", agent: "helper", unit: { kind: "todo", title: "Read the logs" } },
    ]);
    // Both belong to the one AI SDK run.
    expect(new Set(events.map((e) => e.runId)).size).toBe(1);
    expect(events[0]?.runId).toEqual(expect.any(String));
  });

  it("gives the plan notebook's hint to each step once a plan exists", async () => {
    const notebook = new PlanNotebook();
    const subtasks = [{ name: "Read the logs", description: "Collect errors.", expected_outcome: "A list." }];
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("p1", "create_plan", { name: "Triage", description: "Find failures.", expected_outcome: "A summary.", subtasks })]),
        reply([{ type: "text", text: "Planned." }]),
      ],
    });
    await generateText({ model, ...aiSdkPlanning([notebook]), prompt: "Triage the logs.", stopWhen: stepCountIs(3) });

    expect(notebook.currentPlan?.name).toBe("Triage");
    const hint = lastMessage(model.doGenerateCalls[1]);
    expect(hint?.role).toBe("user");
    expect(JSON.stringify(hint)).toContain("<system-hint>");
    expect(JSON.stringify(hint)).toContain("Read the logs");
  });

  it("refuses two plugins offering the same tool name", () => {
    const a = counterPlugin().plugin;
    const b = { ...counterPlugin().plugin, name: "other" };
    expect(() => aiSdkPlanning([a, b])).toThrow(/"bump"/);
  });
});
