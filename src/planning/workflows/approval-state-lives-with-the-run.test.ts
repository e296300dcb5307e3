import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../core/tool.js";
import { scriptedModel } from "../../models/scripted.js";
import { LLMCompiler } from "./llm-compiler/llm-compiler.js";
import { PlanAndExecute } from "./plan-and-execute/plan-and-execute.js";
import { PlanTool } from "./plan-tool/plan-tool.js";
import { Rewoo } from "./rewoo/rewoo.js";
import type { Workflow } from "./workflow.js";

const note = defineTool({ name: "note", description: "Notes a text.", parameters: z.object({ text: z.string() }), execute: ({ text }) => `noted ${text}` });
const APPROVAL_FIELDS = ["proposal", "proposals", "note", "held"];

// Every workflow waits the same way: what the user decides is kept by the run, beside the workflow's own progress.
const workflows: [string, () => Workflow][] = [
  ["plan-and-execute", () => new PlanAndExecute({ model: scriptedModel(['{"steps": ["Note it"]}']), approvePlans: true })],
  ["plan-tool", () => new PlanTool({ model: scriptedModel(['{"subtasks": ["Note it"]}']), tools: [note], approvePlans: true })],
  ["rewoo", () => new Rewoo({ model: scriptedModel(['{"steps": [{"plan": "note", "tool": "note", "input": {"text": "a"}}]}']), tools: [note], approvePlans: true })],
  ["compiler", () => new LLMCompiler({ model: scriptedModel(['{"id": 1, "tool": "note", "args": {"text": "a"}}\n{"tool": "join"}']), tools: [note], approvePlans: true })],
];

describe("a workflow paused on its plan", () => {
  it.each(workflows)("%s: the run's approvals hold the proposal, its progress holds none of it", async (_, make) => {
    const outcome = await make().run("Note something");
    expect(outcome.stopReason).toBe("awaiting-user");
    expect(outcome.state.approvals).toMatchObject({ proposal: { callId: "plan-1", earlier: [] }, proposals: 1, note: null, held: {} });
    expect(outcome.pending?.map((call) => [call.id, call.kind])).toEqual([["plan-1", "plan"]]);
    expect(Object.keys(outcome.state.progress as object).filter((key) => APPROVAL_FIELDS.includes(key))).toEqual([]);
  });

  it("rewoo: a step's call held for the user is kept with the run's approvals", async () => {
    const plan = '{"steps": [{"plan": "note", "tool": "note", "input": {"text": "a"}}]}';
    const outcome = await new Rewoo({ model: scriptedModel([plan]), tools: [note], permissions: {} }).run("Note something");
    expect(outcome.pending?.map((call) => [call.id, call.kind])).toEqual([["step-#E1", "approval"]]);
    expect(Object.keys(outcome.state.approvals?.held ?? {})).toEqual(["step-#E1"]);
    expect(Object.keys(outcome.state.progress as object).filter((key) => APPROVAL_FIELDS.includes(key))).toEqual([]);
  });
});
