import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../core/tool.js";
import { scriptedModel } from "../models/scripted.js";
import { LLMCompiler } from "../planning/workflows/llm-compiler/llm-compiler.js";
import { WorkflowSession } from "./workflow-session.js";

const lookup = defineTool({ name: "lookup", description: "Looks a word up.", parameters: z.object({ q: z.string() }), readOnly: true, execute: ({ q }) => `found ${q}` });
const plan = [JSON.stringify({ id: 1, tool: "lookup", args: { q: "x" } }), JSON.stringify({ tool: "join" })].join("\n");

describe("WorkflowSession", () => {
  it("ends with no answer, not final, when the compiler runs out of planning rounds", async () => {
    const session = new WorkflowSession("compiler", (onEvent) =>
      new LLMCompiler({
        model: scriptedModel([plan]),
        joinerModel: scriptedModel([JSON.stringify({ action: "replan", reason: "need more" })]),
        tools: [lookup],
        maxRounds: 1,
        onEvent,
      }),
      async () => undefined,
    );
    const outcome = await session.run("x?", new AbortController().signal);
    expect(outcome).toEqual({ text: "No final answer after 1 planning rounds. Still missing: need more", stopReason: "no-answer" });
  });
});
