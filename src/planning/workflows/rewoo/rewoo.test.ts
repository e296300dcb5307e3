import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../../../core/events.js";
import { defineTool } from "../../../core/tool.js";
import { scriptedModel } from "../../../models/scripted.js";
import { Rewoo } from "./rewoo.js";

const lookup = defineTool({
  name: "lookup",
  description: "Look a fact up.",
  parameters: z.object({ query: z.string() }),
  readOnly: true,
  execute: ({ query }) => {
    if (query.includes("broken")) throw new Error("index offline");
    return `fact(${query})`;
  },
});

describe("Rewoo", () => {
  it("plans once, works each step without history substituting evidence by whole token, and solves", async () => {
    const steps = Array.from({ length: 10 }, (_, i) => ({ plan: `look ${i + 1}`, tool: "lookup", input: { query: `q${i + 1}` } }));
    steps.push({ plan: "combine", tool: "LLM", input: "Combine #E1 with #E10" as never });
    steps.push({ plan: "fails", tool: "lookup", input: { query: "broken #E11" } });
    const planner = scriptedModel([JSON.stringify({ steps })]);
    const worker = scriptedModel([(req) => `combined<${String(req.messages[0]?.content)}>`]);
    const solver = scriptedModel([(req) => (String(req.messages[0]?.content).includes("index offline") ? "final answer" : "missing evidence")]);
    const events: AgentEvent[] = [];
    const rewoo = new Rewoo({ model: planner, executorModel: worker, solverModel: solver, tools: [lookup], onEvent: (e) => events.push(e) });

    const { answer, trace } = await rewoo.run("Combine facts");

    expect(answer).toBe("final answer");
    expect(worker.requests[0]?.messages).toEqual([{ role: "user", content: "Combine fact(q1) with fact(q10)" }]);
    expect(trace.steps.map((s) => s.id)).toEqual(Array.from({ length: 12 }, (_, i) => `#E${i + 1}`));
    expect(trace.steps[11]).toMatchObject({ isError: true, result: 'Tool "lookup" failed: index offline' });
    expect(trace.plans[0]?.steps[10]).toMatchObject({ id: "#E11", dependsOn: ["#E1", "#E10"] });
    const solverPrompt = String(solver.requests[0]?.messages[0]?.content);
    expect(solverPrompt).toContain("#E11 = LLM[Combine #E1 with #E10]\nEvidence: combined<Combine fact(q1) with fact(q10)>");
    expect(planner.requests[0]?.tools.map((t) => t.name)).toEqual(["lookup"]);
    expect(events.map((e) => e.type).filter((t) => t.startsWith("workflow-") && !t.startsWith("workflow-step"))).toEqual([
      "workflow-planning-started",
      "workflow-planned",
      "workflow-end",
    ]);
  });

  it("tells the planner why its plan was refused and accepts the corrected text form", async () => {
    const planner = scriptedModel(["Plan: x #E1 = lookup[#E2]", "Plan: find it #E1 = lookup[capital of France]"]);
    const solver = scriptedModel([(req) => String(req.messages[0]?.content).match(/Evidence: (.*)/)?.[1] ?? ""]);
    const { answer, trace } = await new Rewoo({ model: planner, solverModel: solver, tools: [lookup] }).run("Capital?");
    expect(String(planner.requests[1]?.messages.at(-1)?.content)).toContain("#E1 uses #E2, which no earlier step defines.");
    expect(answer).toBe("fact(capital of France)");
    expect(trace.plans[0]?.errors).toHaveLength(1);
  });

  it("falls back to solving from the task alone after two unusable plans", async () => {
    const planner = scriptedModel(["no plan", "still no plan"]);
    const solver = scriptedModel(["best guess"]);
    const { answer, trace } = await new Rewoo({ model: planner, solverModel: solver, tools: [lookup] }).run("Capital?");
    expect(answer).toBe("best guess");
    expect(trace.plans[0]).toMatchObject({ fallback: true, steps: [] });
    expect(String(solver.requests[0]?.messages[0]?.content)).toContain("no plan could be made");
  });

  it("skips every step that needs failed evidence, directly or down the chain, and tells the solver", async () => {
    const queries: string[] = [];
    const recording = defineTool({
      name: "lookup",
      description: "Look a fact up.",
      parameters: z.object({ query: z.string() }),
      execute: ({ query }) => {
        queries.push(query);
        if (query === "boom") throw new Error("boom");
        return `fact(${query})`;
      },
    });
    const steps = [
      { plan: "first", tool: "lookup", input: { query: "boom" } },
      { plan: "uses the failure", tool: "lookup", input: { query: "use #E1" } },
      { plan: "uses the skipped step", tool: "LLM", input: "summarize #E2" },
      { plan: "independent", tool: "lookup", input: { query: "other" } },
    ];
    const worker = scriptedModel([]);
    const solver = scriptedModel(["answer"]);
    const rewoo = new Rewoo({ model: scriptedModel([JSON.stringify({ steps })]), executorModel: worker, solverModel: solver, tools: [recording] });

    const { trace } = await rewoo.run("Find it");

    expect(queries).toEqual(["boom", "other"]);
    expect(worker.requests).toEqual([]);
    expect(trace.steps.map((s) => [s.id, s.isError, s.result])).toEqual([
      ["#E1", true, 'Tool "lookup" failed: boom'],
      ["#E2", true, "Not run: #E1, whose evidence it needs, failed."],
      ["#E3", true, "Not run: #E2, whose evidence it needs, was not run."],
      ["#E4", false, "fact(other)"],
    ]);
    const solverPrompt = String(solver.requests[0]?.messages[0]?.content);
    expect(solverPrompt).toContain('#E2 = lookup[{"query":"use #E1"}]\nEvidence: Not run: #E1, whose evidence it needs, failed.');
    expect(solverPrompt).toContain("#E3 = LLM[summarize #E2]\nEvidence: Not run: #E2, whose evidence it needs, was not run.");
    expect(solverPrompt).toMatch(/was not run; its evidence says "Not run" and why/);
  });
});
