import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../../core/events.js";
import type { ChatModel, ModelStreamPart } from "../../../core/model.js";
import { defineTool } from "../../../core/tool.js";
import { scriptedModel } from "../../../models/scripted.js";
import { LLMCompiler } from "./llm-compiler.js";

function lookupTool(calls: string[], failOn = "") {
  return defineTool({
    name: "lookup",
    description: "Look a fact up.",
    parameters: z.object({ query: z.string() }),
    readOnly: true,
    execute: async ({ query }) => {
      calls.push(query);
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (query === failOn) throw new Error("source unreachable");
      return `<${query}>`;
    },
  });
}

const line = (task: object) => `${JSON.stringify(task)}\n`;
const finish = (answer: string) => JSON.stringify({ action: "finish", answer });
const describeEvent = (e: AgentEvent) =>
  e.type === "workflow-step-start" ? `start ${e.step.id}` : e.type === "workflow-step-end" ? `end ${e.stepId}` : e.type;

describe("LLMCompiler", () => {
  it("starts tasks while the planner is still streaming its plan", async () => {
    const calls: string[] = [];
    const plan =
      line({ id: 1, tool: "lookup", args: { query: "a" } }) +
      line({ id: 2, tool: "lookup", args: { query: "b" } }) +
      line({ id: 3, tool: "lookup", args: { query: "$1 and $2" } }) +
      line({ tool: "join" });
    const scripted = scriptedModel([plan], { latencyMs: 5, streamChunkSize: 8 });
    const order: string[] = [];
    const planner: ChatModel = {
      id: "planner",
      generate: (req) => scripted.generate(req),
      async *stream(req) {
        for await (const part of scripted.stream(req)) {
          if (part.type === "response") order.push("planner-stream-end");
          yield part;
        }
      },
    };
    const compiler = new LLMCompiler({
      model: planner,
      joinerModel: scriptedModel([(req) => finish(String(req.messages[0]?.content).match(/3\. .* -> (.*)/)?.[1] ?? "")]),
      tools: [lookupTool(calls)],
      onEvent: (e) => order.push(describeEvent(e)),
    });

    const { answer, trace } = await compiler.run("Combine a and b");

    expect(order.indexOf("start 1")).toBeLessThan(order.indexOf("planner-stream-end"));
    expect(order.indexOf("start 2")).toBeLessThan(order.indexOf("planner-stream-end"));
    expect(order.indexOf("planner-stream-end")).toBeLessThan(order.indexOf("workflow-planned"));
    expect(order.indexOf("start 3")).toBeGreaterThan(Math.max(order.indexOf("end 1"), order.indexOf("end 2")));
    expect(answer).toBe("<<a> and <b>>");
    expect(trace.plans[0]?.steps.map((s) => s.dependsOn)).toEqual([[], [], ["1", "2"]]);
    expect(calls).toEqual(["a", "b", "<a> and <b>"]);
  });

  it("runs a dependent task before the plan is finished once its inputs are done", async () => {
    let firstDone!: () => void;
    const gate = new Promise<void>((resolve) => (firstDone = resolve));
    const gated: ChatModel = {
      id: "gated",
      generate: () => Promise.reject(new Error("use stream")),
      async *stream(): AsyncIterable<ModelStreamPart> {
        const first = line({ id: 1, tool: "lookup", args: { query: "a" } });
        const second = line({ id: 2, tool: "lookup", args: { query: "after $1" } });
        yield { type: "text-delta", text: first };
        await gate; // the plan goes on only after task 1 has finished
        yield { type: "text-delta", text: second };
        yield { type: "response", response: { message: { role: "assistant", content: first + second } } };
      },
    };
    const events: AgentEvent[] = [];
    const compiler = new LLMCompiler({
      model: gated,
      joinerModel: scriptedModel([finish("ok")]),
      tools: [lookupTool([])],
      onEvent: (e) => {
        events.push(e);
        if (e.type === "workflow-step-end" && e.stepId === "1") firstDone();
      },
    });
    await compiler.run("task");
    const steps = events.filter((e) => e.type === "workflow-planned" || e.type.startsWith("workflow-step"));
    expect(steps.map(describeEvent).slice(0, 4)).toEqual(["start 1", "end 1", "start 2", "workflow-planned"]);
  });

  it("turns a failed tool into an error observation, replans with continued numbering and never reruns a finished task", async () => {
    const calls: string[] = [];
    const planner = scriptedModel([
      line({ id: 1, tool: "lookup", args: { query: "a" } }) +
        line({ id: 2, tool: "lookup", args: { query: "flaky" } }) +
        line({ id: 3, tool: "lookup", args: { query: "use $2" } }),
      // round 2, in the reference's text form: repeats task 1 and adds a new lookup
      '4. lookup(query="a")\n5. lookup(query="backup for $4")\njoin()',
    ]);
    const joiner = scriptedModel([JSON.stringify({ action: "replan", reason: "task 2 failed" }), finish("done")]);
    const compiler = new LLMCompiler({ model: planner, joinerModel: joiner, tools: [lookupTool(calls, "flaky")] });

    const { answer, trace } = await compiler.run("Find it");

    expect(answer).toBe("done");
    expect(calls).toEqual(["a", "flaky", "backup for <a>"]);
    expect(trace.steps.find((s) => s.id === "2")).toMatchObject({ isError: true, result: 'Tool "lookup" failed: source unreachable' });
    expect(trace.steps.find((s) => s.id === "3")).toMatchObject({ isError: true, result: "Not run: task 2, whose result it needs, failed." });
    expect(trace.steps.find((s) => s.id === "4")).toMatchObject({ isError: false, result: "<a>", round: 2 });
    const firstJoin = String(joiner.requests[0]?.messages[0]?.content);
    expect(firstJoin).toContain('2. lookup({"query":"flaky"}) -> ERROR: Tool "lookup" failed: source unreachable');
    const replanInput = String(planner.requests[1]?.messages.at(-1)?.content);
    expect(replanInput).toContain("Why: task 2 failed");
    expect(replanInput).toContain("Number new tasks from 4.");
    expect(replanInput).toContain('1. lookup({"query":"a"}) -> <a>');
    expect(String(joiner.requests[1]?.messages[0]?.content)).toContain('4. lookup({"query":"a"}) [same as task 1] -> <a>');
    expect(trace.plans.map((p) => p.steps.map((s) => s.id))).toEqual([["1", "2", "3"], ["4", "5"]]);
  });

  it("shows refused planner output to the joiner and replans from it", async () => {
    const planner = scriptedModel([
      "I think we should look things up.\n" + line({ id: 1, tool: "lookup", args: { query: "$2" } }),
      line({ id: 1, tool: "lookup", args: { query: "x" } }),
    ]);
    const joiner = scriptedModel([
      (req) => (String(req.messages[0]?.content).includes("refers to task 2") ? JSON.stringify({ action: "replan", reason: "bad plan" }) : finish("wrong")),
      "The answer is <x>.",
    ]);
    const { answer, trace } = await new LLMCompiler({ model: planner, joinerModel: joiner, tools: [lookupTool([])] }).run("x?");
    expect(trace.plans[0]).toMatchObject({ fallback: true, steps: [] });
    expect(trace.plans[0]?.errors[0]).toContain("refers to task 2, which is not listed before it");
    expect(String(planner.requests[1]?.messages.at(-1)?.content)).toContain("Parts of the last plan were refused");
    expect(answer).toBe("The answer is <x>.");
  });

  it("stops the tasks it started, and waits for them, before rejecting when the planner fails mid-stream", async () => {
    const log: string[] = [];
    let writing!: () => void;
    const writeStarted = new Promise<void>((resolve) => (writing = resolve));
    const writeTool = defineTool({
      name: "write",
      description: "Write a file.",
      parameters: z.object({ path: z.string() }),
      execute: async ({ path }, ctx) => {
        log.push(`writing ${path}`);
        writing();
        // Stands for a long write that gives up when told to stop (or after a while, so a test without the fix ends).
        await new Promise<void>((resolve) => {
          ctx.signal?.addEventListener("abort", () => resolve(), { once: true });
          setTimeout(resolve, 2_000);
        });
        log.push(ctx.signal?.aborted ? `stopped ${path}` : `wrote ${path}`);
        return "ok";
      },
    });
    const calls: string[] = [];
    const failing: ChatModel = {
      id: "failing",
      generate: () => Promise.reject(new Error("use stream")),
      async *stream(): AsyncIterable<ModelStreamPart> {
        yield { type: "text-delta", text: line({ id: 1, tool: "write", args: { path: "a.txt" } }) };
        yield { type: "text-delta", text: line({ id: 2, tool: "lookup", args: { query: "after $1" } }) };
        await writeStarted;
        throw new Error("connection reset");
      },
    };
    const compiler = new LLMCompiler({ model: failing, joinerModel: scriptedModel([]), tools: [writeTool, lookupTool(calls)] });

    await expect(compiler.run("write it")).rejects.toThrow("connection reset");
    expect(log).toEqual(["writing a.txt", "stopped a.txt"]);
    expect(calls).toEqual([]);
  });

  it("stops after the last round with what is missing", async () => {
    const planner = scriptedModel([line({ tool: "lookup", args: { query: "x" } })]);
    const joiner = scriptedModel([(req) => {
      expect(String(req.messages[0]?.content)).toContain("This was the last planning round");
      return JSON.stringify({ action: "replan", reason: "need more" });
    }]);
    const { answer } = await new LLMCompiler({ model: planner, joinerModel: joiner, tools: [lookupTool([])], maxRounds: 1 }).run("x?");
    expect(answer).toBe("No final answer after 1 planning rounds. Still missing: need more");
  });
});
