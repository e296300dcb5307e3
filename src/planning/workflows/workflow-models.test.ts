import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../core/tool.js";
import { scriptedModel } from "../../models/scripted.js";
import { LLMCompiler } from "./llm-compiler/llm-compiler.js";
import { PlanAndExecute } from "./plan-and-execute/plan-and-execute.js";
import { PlanTool } from "./plan-tool/plan-tool.js";
import { Rewoo } from "./rewoo/rewoo.js";

// `model` is the default for every role; a scripted model with no turns fails the run if it is ever called.
const unused = () => scriptedModel([]);
const note = defineTool({ name: "note", description: "Notes a text.", parameters: z.object({ text: z.string() }), execute: ({ text }) => `noted ${text}` });

describe("every workflow names its models the same way: model, then <role>Model", () => {
  it("plan-and-execute: plannerModel plans and replans, executorModel executes, summarizerModel is the summarizer", async () => {
    const planner = scriptedModel(['{"steps": ["Do it"]}', '{"answer": "done"}']);
    const outcome = await new PlanAndExecute({ model: unused(), plannerModel: planner, executorModel: scriptedModel(["did it"]), summarizerModel: unused() }).run("Task");
    expect(outcome).toMatchObject({ stopReason: "final", text: "done" });
    expect(planner.requests).toHaveLength(2);
  });

  it("plan-tool: plannerModel plans, executorModel runs the subtasks", async () => {
    const outcome = await new PlanTool({ model: unused(), plannerModel: scriptedModel(['{"subtasks": ["Do it"]}']), executorModel: scriptedModel(["did it"]), tools: [] }).run("Task");
    expect(outcome.stopReason).toBe("final");
    expect(outcome.trace.steps.map((step) => step.result)).toEqual(["did it"]);
  });

  it("rewoo: plannerModel plans, executorModel works the LLM steps, solverModel solves", async () => {
    const plan = JSON.stringify({ steps: [{ plan: "think", tool: "LLM", input: "say hi" }] });
    const outcome = await new Rewoo({ model: unused(), plannerModel: scriptedModel([plan]), executorModel: scriptedModel(["hi"]), solverModel: scriptedModel(["solved"]), tools: [note] }).run("Task");
    expect(outcome).toMatchObject({ stopReason: "final", text: "solved" });
    expect(outcome.trace.steps.map((step) => step.result)).toEqual(["hi"]);
  });

  it("compiler: plannerModel plans, joinerModel joins", async () => {
    const plan = '{"id": 1, "tool": "note", "args": {"text": "a"}}\n{"tool": "join"}';
    const joiner = scriptedModel(['{"action": "finish", "answer": "noted"}']);
    const outcome = await new LLMCompiler({ model: unused(), plannerModel: scriptedModel([plan]), joinerModel: joiner, tools: [note] }).run("Task");
    expect(outcome).toMatchObject({ stopReason: "final", text: "noted" });
  });

  it("the earlier names (rewoo's workerModel, plan-and-execute's summaryModel) still pick their role's model", async () => {
    const plan = JSON.stringify({ steps: [{ plan: "think", tool: "LLM", input: "say hi" }] });
    const worker = scriptedModel(["hi"]);
    await new Rewoo({ model: scriptedModel([plan, "solved"]), workerModel: worker, tools: [note] }).run("Task");
    expect(worker.requests).toHaveLength(1);

    const steps = ["One", "Two", "Three"].map((s) => `${s} ${"long step text ".repeat(20)}`);
    const summarizer = scriptedModel(Array.from({ length: 5 }, () => "short summary"));
    const executor = scriptedModel(steps.map((s) => `result ${"measured value ".repeat(40)} ${s}`));
    await new PlanAndExecute({ model: scriptedModel([JSON.stringify({ steps })]), executorModel: executor, summaryModel: summarizer, replan: false, historyTokenBudget: 100 }).run("Task");
    expect(summarizer.requests.length).toBeGreaterThan(0);
  });
});
