import { trace } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../core/agent.js";
import { defineTool } from "../core/tool.js";
import { scriptedModel } from "../models/scripted.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { LLMCompiler } from "../planning/workflows/llm-compiler/llm-compiler.js";
import { PlanTool } from "../planning/workflows/plan-tool/plan-tool.js";
import { openTelemetry } from "./open-telemetry.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentModel } from "../models/test-support/silent-model.js";
import { openRuns } from "../runs/runs.js";

const lookup = defineTool({
  name: "lookup",
  description: "Look a fact up.",
  parameters: z.object({ query: z.string() }),
  readOnly: true,
  execute: ({ query }) => {
    if (query === "nowhere") throw new Error("source unreachable");
    return `<${query}>`;
  },
});

// No context manager is registered: parentage must come from the plugin alone.
function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const spans = () => exporter.getFinishedSpans();
  const named = (name: string) => {
    const found = spans().filter((s) => s.name === name);
    expect(found, `a span named "${name}" among ${spans().map((s) => s.name).join(", ")}`).not.toHaveLength(0);
    return found;
  };
  const one = (name: string) => named(name)[0] as ReadableSpan;
  const parentOf = (span: ReadableSpan) => spans().find((s) => s.spanContext().spanId === span.parentSpanContext?.spanId);
  return { tracer: provider.getTracer("test"), spans, named, one, parentOf };
}

afterEach(() => {
  trace.disable();
});

describe("openTelemetry", () => {
  it("makes invoke_agent, chat and execute_tool spans with GenAI attributes; a failed tool is an ERROR", async () => {
    const t = tracing();
    const model = scriptedModel(
      [
        { toolCalls: [{ name: "lookup", arguments: { query: "Paris" }, id: "c1" }, { name: "lookup", arguments: { query: "nowhere" }, id: "c2" }] },
        "Paris is in France.",
      ],
      { id: "openai:gpt-test" },
    );
    const agent = new Agent({ name: "researcher", model, tools: [lookup], plugins: [openTelemetry({ tracer: t.tracer })] });
    await agent.run("Where is Paris?");

    const run = t.one("invoke_agent researcher");
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "researcher", "stepwise.stop_reason": "final" });
    const chats = t.named("chat gpt-test");
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(t.parentOf(chat)).toBe(run);
      expect(chat.attributes).toMatchObject({ "gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-test", "gen_ai.provider.name": "openai" });
      expect(chat.attributes["gen_ai.usage.input_tokens"]).toBeGreaterThan(0);
      expect(chat.attributes["gen_ai.usage.output_tokens"]).toBeGreaterThan(0);
    }
    const tools = t.named("execute_tool lookup");
    expect(tools.map((s) => s.attributes["gen_ai.tool.call.id"]).sort()).toEqual(["c1", "c2"]);
    for (const tool of tools) {
      expect(t.parentOf(tool)).toBe(run);
      expect(tool.attributes).toMatchObject({ "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup" });
    }
    const failed = tools.find((s) => s.attributes["gen_ai.tool.call.id"] === "c2");
    expect(failed?.status).toMatchObject({ code: 2 /* ERROR */ });
    expect(failed?.status.message).toContain("source unreachable");
    expect(tools.find((s) => s.attributes["gen_ai.tool.call.id"] === "c1")?.status.code).toBe(0);
    // Spans take their times from the events: a tool starts after the model call that asked for it ended.
    const firstChat = chats.sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1])[0]!;
    expect(tools[0]!.startTime[0] * 1e9 + tools[0]!.startTime[1]).toBeGreaterThanOrEqual(firstChat.endTime[0] * 1e9 + firstChat.endTime[1]);
  });

  it("ends the spans of a run aborted mid-call, the model call's included", async () => {
    const t = tracing();
    const agent = new Agent({ name: "slow", model: scriptedModel(["never"], { latencyMs: 60_000 }), plugins: [openTelemetry({ tracer: t.tracer })] });
    const controller = new AbortController();
    agent.on((event) => {
      if (event.type === "model-start") controller.abort();
    });
    expect((await agent.run("x", { signal: controller.signal })).stopReason).toBe("aborted");
    expect(t.spans().map((s) => s.name).sort()).toEqual(["chat scripted", "invoke_agent slow"]);
    expect(t.one("invoke_agent slow").attributes["stepwise.stop_reason"]).toBe("aborted");
    expect(t.parentOf(t.one("chat scripted"))?.name).toBe("invoke_agent slow");
  });

  it("traces a run the run layer stopped mid-call without a span left open or started after its end", async () => {
    const started: string[] = [];
    const ended: string[] = [];
    const provider = new BasicTracerProvider({
      spanProcessors: [
        {
          onStart: (span) => void started.push(span.name),
          onEnd: (span) => void ended.push(span.name),
          forceFlush: async () => undefined,
          shutdown: async () => undefined,
        },
      ],
    });
    const otel = openTelemetry({ tracer: provider.getTracer("test") });
    const dir = mkdtempSync(join(tmpdir(), "stepwise-otel-"));
    const runs = openRuns({ store: join(dir, "runs.db") });
    try {
      const silent = silentModel();
      const seen: string[] = [];
      const handle = await runs.start({
        task: "wait",
        strategy: "notebook",
        model: silent.model,
        settings: { workspace: dir },
        onEvent: (event) => {
          seen.push(event.type);
          otel.onEvent(event);
        },
      });
      await silent.asked;
      handle.stop();
      expect((await handle.done).status).toBe("aborted");
      // The run layer ends the cut-off call in the log after the run's own end, which closed its span.
      expect(seen.slice(-2)).toEqual(["run-end", "call-interrupted"]);
      expect(started.sort()).toEqual(["chat silent", "invoke_agent notebook"]);
      expect(ended.sort()).toEqual(started);
    } finally {
      await runs.close();
    }
  });

  it("uses the global tracer when given none", async () => {
    const t = tracing();
    const exporter = new InMemorySpanExporter();
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    await new Agent({ name: "solo", model: scriptedModel(["hi"]), plugins: [openTelemetry()] }).run("x");
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(["chat scripted", "invoke_agent solo"]);
    expect(t.spans()).toHaveLength(0);
  });

  it("records plan changes as span events that name the plan and its state", async () => {
    const t = tracing();
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: "create_plan",
            arguments: { name: "Trip", description: "Plan a trip", expected_outcome: "A plan", subtasks: [{ name: "Book", description: "Book it", expected_outcome: "Booked" }] },
          },
        ],
      },
      { toolCalls: [{ name: "finish_plan", arguments: { state: "abandoned", outcome: "No money" } }] },
      "Gave up.",
    ]);
    await new Agent({ name: "planner", model, plugins: [new PlanNotebook(), openTelemetry({ tracer: t.tracer })] }).run("Plan a trip.");
    const events = t.one("invoke_agent planner").events.filter((e) => e.name === "plan-updated");
    expect(events.map((e) => [e.attributes?.["stepwise.plan.name"], e.attributes?.["stepwise.plan.change"], e.attributes?.["stepwise.plan.state"]])).toEqual(
      expect.arrayContaining([
        ["Trip", "created", "todo"],
        ["Trip", "finished", "abandoned"],
      ]),
    );
  });

  it("nests the plan tool's workflow under its tool call, and its planner and subtasks under the workflow", async () => {
    const t = tracing();
    const plan = new PlanTool({
      model: scriptedModel(['{"subtasks": ["Look up a"]}']),
      executorModel: scriptedModel([{ toolCalls: [{ name: "lookup", arguments: { query: "a" } }] }, "Found a."]),
      tools: [lookup],
    });
    const model = scriptedModel([{ toolCalls: [{ name: "plan", arguments: { task: "Find a" }, id: "call_plan" }] }, "All done."]);
    await new Agent({ name: "main", model, plugins: [plan, openTelemetry({ tracer: t.tracer })] }).run("Find a.");

    const main = t.one("invoke_agent main");
    const planCall = t.one("execute_tool plan");
    expect(t.parentOf(planCall)).toBe(main);
    const workflow = t.one("invoke_workflow plan-tool");
    expect(workflow.attributes).toMatchObject({ "gen_ai.operation.name": "invoke_workflow" });
    expect(t.parentOf(workflow)).toBe(planCall);
    expect(t.parentOf(t.one("invoke_agent planner"))).toBe(workflow);
    const step = t.one("step 1");
    expect(t.parentOf(step)).toBe(workflow);
    const subtask = t.one("invoke_agent subtask-1");
    expect(t.parentOf(subtask)).toBe(step);
    const subtaskTool = t.one("execute_tool lookup");
    expect(t.parentOf(subtaskTool)).toBe(subtask);
    expect(workflow.events.map((e) => e.name)).toEqual(["planning-started", "workflow-planned"]);
  });

  it("traces a workflow through its onEvent: steps, their tool calls and its model calls", async () => {
    const t = tracing();
    const otel = openTelemetry({ tracer: t.tracer });
    const plan = `${JSON.stringify({ id: 1, tool: "lookup", args: { query: "a" } })}\n${JSON.stringify({ id: 2, tool: "lookup", args: { query: "nowhere" } })}\n`;
    const compiler = new LLMCompiler({
      model: scriptedModel([plan]),
      joinerModel: scriptedModel([JSON.stringify({ action: "finish", answer: "done" })]),
      tools: [lookup],
      onEvent: otel.onEvent,
    });
    await compiler.run("Look up a");
    const run = t.one("invoke_workflow llm-compiler");
    expect(run.parentSpanContext).toBeUndefined();
    expect(t.named("chat scripted").every((chat) => t.parentOf(chat) === run)).toBe(true);
    expect(t.named("chat scripted")).toHaveLength(2);
    expect(t.named("execute_tool lookup").every((tool) => t.parentOf(tool) === run)).toBe(true);
    expect(t.one("step 2").status.code).toBe(2);
    expect(t.spans().every((s) => s.ended)).toBe(true);
  });
});
