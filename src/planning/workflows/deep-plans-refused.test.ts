import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MAX_ARGUMENT_DEPTH } from "../../core/argument-limits.js";
import { defineTool } from "../../core/tool.js";
import { scriptedModel } from "../../models/scripted.js";
import { LLMCompiler } from "./llm-compiler/llm-compiler.js";
import { Rewoo } from "./rewoo/rewoo.js";

const lookup = defineTool({ name: "lookup", description: "", parameters: z.object({ query: z.string() }), readOnly: true, execute: ({ query }) => `<${query}>` });
const deep = "[".repeat(100_000) + "]".repeat(100_000);
const refusal = new RegExp(`more than ${MAX_ARGUMENT_DEPTH} levels`);

/** A plan is model output too: nested past the limits, it is refused with a reason, and the run ends. */
describe("plans nested too deep are refused, never thrown", () => {
  it("LLM compiler: a JSON line, a text-form line and a native tool call", async () => {
    for (const plan of [
      `{"tool": "lookup", "args": {"query": ${deep}}}\n{"tool": "join"}`,
      `1. lookup(query=${deep})\njoin()`,
      { toolCalls: [{ name: "lookup", arguments: `{"query": ${deep}}` }] },
    ]) {
      const compiler = new LLMCompiler({ model: scriptedModel([plan]), joinerModel: scriptedModel(["no answer"]), tools: [lookup], maxRounds: 1 });
      const { answer, trace } = await compiler.run("x");
      expect(answer).toBe("no answer");
      expect(trace.steps).toEqual([]);
      if (typeof plan === "string") expect(trace.plans[0]?.errors[0]).toMatch(refusal);
      else expect(trace.plans[0]?.errors[0]).toContain("not a JSON object");
    }
  });

  it("ReWOO: a JSON plan and a plan of tool calls", async () => {
    for (const plan of [`{"steps": [{"tool": "lookup", "input": {"query": ${deep}}}]}`, { toolCalls: [{ name: "lookup", arguments: `{"query": ${deep}}` }] }]) {
      const model = scriptedModel([plan, plan, "solved"]);
      const { answer, trace } = await new Rewoo({ model, tools: [lookup] }).run("x");
      expect(answer).toBe("solved");
      expect(trace.plans[0]?.errors).toHaveLength(2);
      if (typeof plan === "string") expect(trace.plans[0]?.errors[0]).toMatch(refusal);
    }
  });
});
