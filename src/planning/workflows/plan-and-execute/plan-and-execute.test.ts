import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../../core/events.js";
import { estimateMessageTokens } from "../../../core/tokens.js";
import { defineTool } from "../../../core/tool.js";
import { scriptedModel, type ScriptedTurn } from "../../../models/scripted.js";
import { contextFolding, type ContextFolding } from "../../folding/context-folding.js";
import { PlanAndExecute } from "./plan-and-execute.js";

const fetchPrice = defineTool({
  name: "fetch_price",
  description: "Price of a product.",
  parameters: z.object({ product: z.string() }),
  readOnly: true,
  execute: ({ product }) => {
    if (product === "gadget") throw new Error("price service unavailable");
    return `${product}: 12 EUR`;
  },
});

describe("PlanAndExecute", () => {
  it("executes each step with question, plan, history and current step, and follows the replanner", async () => {
    const planner = scriptedModel([
      '{"steps": ["Find the gadget price", "Double it"]}',
      // after step 1 (failed tool): change course
      '{"steps": ["Find the widget price instead", "Double it"]}',
      // after step 2: keep going
      '{"steps": ["Double it"]}',
      // after step 3: answer
      '{"answer": "24 EUR"}',
    ]);
    const executor = scriptedModel([
      { toolCalls: [{ name: "fetch_price", arguments: { product: "gadget" } }] },
      (req) => `No price: ${String(req.messages.at(-1)?.content)}`,
      { toolCalls: [{ name: "fetch_price", arguments: { product: "widget" } }] },
      "widget: 12 EUR",
      "24 EUR",
    ]);
    const events: AgentEvent[] = [];
    const workflow = new PlanAndExecute({ model: planner, executorModel: executor, tools: [fetchPrice], onEvent: (e) => events.push(e) });

    const { answer, trace } = await workflow.run("What is twice the price?");

    expect(answer).toBe("24 EUR");
    expect(trace.plans.map((p) => p.steps.map((s) => `${s.id}:${s.description}`))).toEqual([
      ["1:Find the gadget price", "2:Double it"],
      ["2:Find the widget price instead", "3:Double it"],
      ["3:Double it"],
    ]);
    expect(trace.steps.map((s) => s.id)).toEqual(["1", "2", "3"]);
    expect(trace.steps[0]?.result).toContain("price service unavailable");
    const lastInput = String(executor.requests[4]?.messages[1]?.content);
    expect(lastInput).toContain("Original question: What is twice the price?");
    expect(lastInput).toContain("2. [done] Find the widget price instead");
    expect(lastInput).toContain("3. Double it   <- current");
    expect(lastInput).toContain("Result: widget: 12 EUR");
    expect(lastInput).toContain("Current step: Double it");
    expect(String(planner.requests[1]?.messages[0]?.content)).toContain("price service unavailable");
    expect(events.map((e) => e.type).at(-1)).toBe("workflow-end");
    expect(events.filter((e) => e.type === "workflow-planned")).toHaveLength(3);
  });

  it("retries an invalid plan once, then falls back to the task as the only step", async () => {
    const planner = scriptedModel(["1. do a\n2. do b", '{"steps": "do a"}']);
    const executor = scriptedModel(["the answer"]);
    const workflow = new PlanAndExecute({ model: planner, executorModel: executor, replan: false });
    const { answer, trace } = await workflow.run("Solve it");
    expect(planner.requests[1]?.messages.at(-1)?.content).toContain("not valid JSON");
    expect(trace.plans[0]).toMatchObject({ fallback: true, steps: [{ id: "1", description: "Solve it" }] });
    expect(trace.plans[0]?.errors).toHaveLength(2);
    expect(answer).toBe("the answer");
  });

  it("keeps the plan when the replanner's reply is unusable", async () => {
    const planner = scriptedModel(['{"steps": ["a", "b"]}', "I think we should continue.", '{"answer": "done"}']);
    const executor = scriptedModel(["result a", "result b"]);
    const { answer, trace } = await new PlanAndExecute({ model: planner, executorModel: executor }).run("task");
    expect(trace.plans[1]).toMatchObject({ fallback: true, steps: [{ id: "2", description: "b" }] });
    expect(trace.steps.map((s) => s.description)).toEqual(["a", "b"]);
    expect(answer).toBe("done");
  });

  it("keeps executor prompts bounded by summarizing history past the token budget", async () => {
    const steps = Array.from({ length: 14 }, (_, i) => `Step number ${i + 1}`);
    const longResult = (n: number) => `Result ${n}: ${"measured value ".repeat(40)}`;
    const run = async (historyTokenBudget: number) => {
      const executor = scriptedModel(steps.map((_, i) => longResult(i + 1)));
      const summarizer = scriptedModel(Array.from({ length: 14 }, () => "Steps so far measured values; all fine."));
      const events: AgentEvent[] = [];
      const workflow = new PlanAndExecute({
        model: scriptedModel([JSON.stringify({ steps })]),
        executorModel: executor,
        summarizerModel: summarizer,
        replan: false,
        maxPlanSteps: 20,
        historyTokenBudget,
        onEvent: (e) => events.push(e),
      });
      await workflow.run("Measure everything");
      const sizes = executor.requests.map((r) => estimateMessageTokens(r.messages));
      return { sizes, summaries: events.filter((e) => e.type === "workflow-history-summarized").length };
    };

    const bounded = await run(400);
    const first = bounded.sizes[0] as number;
    expect(bounded.summaries).toBeGreaterThan(0);
    for (const size of bounded.sizes) expect(size).toBeLessThanOrEqual(first + 400 + 50);

    const unbounded = await run(1_000_000);
    expect(unbounded.summaries).toBe(0);
    expect(unbounded.sizes.at(-1) as number).toBeGreaterThan(first + 13 * 150);
  });
});

describe("PlanAndExecute executor plugins", () => {
  const readDoc = defineTool({
    name: "read_doc",
    description: "Read a document.",
    parameters: z.object({ path: z.string() }),
    readOnly: true,
    execute: ({ path }) => `# ${path}\n${`${path} says the limit is 10 requests per second. `.repeat(30)}`,
  });

  it("gives each step's executor its own plugins, so contextFolding stubs old results and recall brings them back", async () => {
    const reads = (step: number): ScriptedTurn[] =>
      Array.from({ length: 8 }, (_, i) => ({ toolCalls: [{ name: "read_doc", arguments: { path: `docs/s${step}-${i}.md` }, id: `s${step}_${i}` }] }));
    const executor = scriptedModel([
      ...reads(1),
      { toolCalls: [{ name: "recall", arguments: { unit: "s1_0" } }] },
      "Step 1: the limit is 10 rps.",
      ...reads(2),
      "Step 2: confirmed.",
    ]);
    const foldings: ContextFolding[] = [];
    const workflow = new PlanAndExecute({
      model: scriptedModel([JSON.stringify({ steps: ["Find the limit", "Confirm it"] })]),
      executorModel: executor,
      tools: [readDoc],
      replan: false,
      executorPlugins: () => {
        const folding = contextFolding({ budgetTokens: 2000 });
        foldings.push(folding);
        return [folding];
      },
    });

    const { trace } = await workflow.run("What is the rate limit?");

    expect(trace.steps.map((step) => step.isError)).toEqual([false, false]);
    expect(foldings).toHaveLength(2);
    for (const folding of foldings) expect(folding.stats.resultsStubbed).toBeGreaterThan(0);
    for (const req of executor.requests) expect(estimateMessageTokens(req.messages)).toBeLessThanOrEqual(2000 + 600);
    const recallRequest = executor.requests[9];
    const stubbed = recallRequest?.messages.find((m) => m.role === "tool" && m.toolCallId === "s1_0");
    expect(stubbed?.content).toContain('recall with unit "s1_0"');
    expect(recallRequest?.messages.at(-1)?.content).toBe((await readDoc.invoke({ path: "docs/s1-0.md" })).text);
  });
});
