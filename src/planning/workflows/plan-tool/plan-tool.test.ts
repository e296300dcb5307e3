import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../../../core/agent.js";
import type { AgentEvent } from "../../../core/events.js";
import { defineTool } from "../../../core/tool.js";
import { scriptedModel } from "../../../models/scripted.js";
import type { WorkflowState } from "../workflow.js";
import { PlanTool } from "./plan-tool.js";

const listFiles = defineTool({
  name: "list_files",
  description: "List the project's files.",
  parameters: z.object({}),
  readOnly: true,
  execute: () => "src/a.ts\nsrc/b.ts",
});
const writeFile = defineTool({
  name: "write_file",
  description: "Write a file.",
  parameters: z.object({ path: z.string(), text: z.string() }),
  execute: ({ path }) => {
    if (path.includes("b.ts")) throw new Error("disk is full");
    return `wrote ${path}`;
  },
});

describe("PlanTool", () => {
  it("plans with read-only tools, runs each subtask in a sub-agent without the plan tool, and returns the joined results", async () => {
    const planner = scriptedModel([
      { toolCalls: [{ name: "list_files", arguments: {} }] },
      '```json\n{"subtasks": ["Update src/a.ts", "Update src/b.ts"]}\n```',
    ]);
    const executor = scriptedModel([
      { toolCalls: [{ name: "write_file", arguments: { path: "src/a.ts", text: "x" } }] },
      "Updated src/a.ts.",
      { toolCalls: [{ name: "write_file", arguments: { path: "src/b.ts", text: "y" } }] },
      (req) => `Could not update src/b.ts: ${String(req.messages.at(-1)?.content)}`,
    ]);
    const plan = new PlanTool({ model: planner, executorModel: executor, tools: [listFiles, writeFile] });
    const caller = scriptedModel([
      { toolCalls: [{ name: "plan", arguments: { task: "Update both files" } }] },
      (req) => `Done: ${String(req.messages.at(-1)?.content)}`,
    ]);
    const agent = new Agent({ name: "main", model: caller, tools: [listFiles, writeFile], plugins: [plan] });
    const events: AgentEvent[] = [];
    agent.on((event) => events.push(event));

    const result = await agent.run("Update both files");

    expect(planner.requests[0]?.tools.map((t) => t.name)).toEqual(["list_files"]);
    expect(executor.requests[0]?.tools.map((t) => t.name)).toEqual(["list_files", "write_file"]);
    const secondInput = String(executor.requests[2]?.messages[1]?.content);
    expect(secondInput).toContain("Overall task: Update both files");
    expect(secondInput).toContain("1. Update src/a.ts");
    expect(secondInput).toContain("Subtask 1: Updated src/a.ts.");
    expect(secondInput).toContain("Your subtask (2 of 2): Update src/b.ts");
    const toolResult = agent.memory.find((m) => m.role === "tool" && m.name === "plan");
    expect(toolResult?.content).toBe(
      '[Plan execution results]\nSubtask 1: Updated src/a.ts.\nSubtask 2: Could not update src/b.ts: Tool "write_file" failed: disk is full',
    );
    expect(result.text).toContain("Done: [Plan execution results]");
    const workflowEvents = events.filter((e) => e.type.startsWith("workflow-")).map((e) => `${e.agent}:${e.type}`);
    expect(workflowEvents).toEqual([
      "plan-tool:workflow-planning-started",
      "plan-tool:workflow-planned",
      "plan-tool:workflow-step-start",
      "plan-tool:workflow-step-end",
      "plan-tool:workflow-step-start",
      "plan-tool:workflow-step-end",
      "plan-tool:workflow-end",
    ]);
  });

  it("tells the planner what was wrong, retries once, then uses the valid plan", async () => {
    const planner = scriptedModel(["Here is my plan: first a, then b.", '{"subtasks": ["only step"]}']);
    const executor = scriptedModel(["did it"]);
    const plan = new PlanTool({ model: planner, executorModel: executor, tools: [] });
    const { answer, trace } = await plan.run("Do the thing");
    expect(String(planner.requests[1]?.messages.at(-1)?.content)).toContain("not valid JSON");
    expect(trace.plans[0]).toMatchObject({ fallback: false, steps: [{ id: "1", description: "only step" }] });
    expect(trace.plans[0]?.errors).toHaveLength(1);
    expect(answer).toBe("[Plan execution results]\nSubtask 1: did it");
  });

  it("falls back to the raw task when the planner fails twice", async () => {
    const planner = scriptedModel(['{"subtasks": []}', '{"steps": ["a"]}']);
    const executor = scriptedModel(["did the whole task"]);
    const events: AgentEvent[] = [];
    const plan = new PlanTool({ model: planner, executorModel: executor, tools: [], onEvent: (e) => events.push(e) });
    const { trace } = await plan.run("Do the thing");
    expect(String(planner.requests[1]?.messages.at(-1)?.content)).toContain("subtasks");
    expect(trace.plans[0]).toMatchObject({ fallback: true, steps: [{ description: "Do the thing" }] });
    expect(String(executor.requests[0]?.messages[1]?.content)).toContain("Your subtask (1 of 1): Do the thing");
    expect(events.find((e) => e.type === "workflow-planned")).toMatchObject({ agent: "plan-tool", fallback: true });
  });

  it("never hands the plan tool to sub-agents, even when the caller passes it among the tools", async () => {
    const executor = scriptedModel(["ok"]);
    const inner = new PlanTool({ model: scriptedModel([]), tools: [] });
    const plan = new PlanTool({
      model: scriptedModel(['{"subtasks": ["a"]}']),
      executorModel: executor,
      tools: [inner.tool, listFiles],
    });
    await plan.run("task");
    expect(executor.requests[0]?.tools.map((t) => t.name)).toEqual(["list_files"]);
  });
});

// Regression: a subtask cut short (aborted, or its process killed) was run again from the start on
// resume, making its finished calls again. Its agent goes on from its last checkpoint instead.
describe("PlanTool resumed from a checkpoint taken mid-subtask", () => {
  it("goes on with the subtask's agent after its finished calls, never making them again", async () => {
    const written: string[] = [];
    const write = defineTool({
      name: "write_file",
      description: "Write a file.",
      parameters: z.object({ path: z.string(), text: z.string() }),
      execute: ({ path }) => {
        written.push(path);
        return `wrote ${path}`;
      },
    });
    const controller = new AbortController();
    // The subtask writes one file per turn, answering once both are written; the user stops the run after the first write.
    const executor = () =>
      scriptedModel(
        Array.from({ length: 3 }, () => (req: { messages: { role: string; content: string }[] }) => {
          const done = req.messages.filter((m) => m.role === "tool").length;
          if (done === 1 && !controller.signal.aborted) controller.abort();
          return done < 2 ? { toolCalls: [{ name: "write_file", arguments: { path: `f${done + 1}.md`, text: "x" } }] } : "Both written.";
        }),
      );
    const planner = () => scriptedModel(['{"subtasks": ["Write both files"]}']);
    let saved: WorkflowState | undefined;
    const first = await new PlanTool({ model: planner(), executorModel: executor(), tools: [write] }).run("Write the files", {
      signal: controller.signal,
      onCheckpoint: (state) => void (saved = JSON.parse(JSON.stringify(state)) as WorkflowState),
    });
    expect(first.stopReason).toBe("aborted");
    expect(written).toEqual(["f1.md"]);

    const done = await new PlanTool({ model: planner(), executorModel: executor(), tools: [write] }).run("Write the files", { state: saved! });
    expect(done.stopReason).toBe("final");
    expect(written).toEqual(["f1.md", "f2.md"]);
    expect(done.trace.steps.map((s) => s.result)).toEqual(["Both written."]);
  });
});
