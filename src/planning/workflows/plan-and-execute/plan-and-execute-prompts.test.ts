import { describe, expect, it } from "vitest";
import {
  historySummaryPrompt,
  replannerPrompt,
  STEP_EXECUTOR_PROMPT,
  stepExecutorInput,
  stepPlannerPrompt,
  stepPlannerRetryNote,
} from "./plan-and-execute-prompts.js";

describe("plan-and-execute prompts", () => {
  it("the planner asks for a bounded list of steps as JSON", () => {
    expect(stepPlannerPrompt(6)).toContain("1 to 6 steps");
    expect(stepPlannerPrompt(6)).toContain('{"steps": [');
    expect(stepPlannerRetryNote("bad")).toContain("bad");
  });

  it("the executor input holds the question, the whole plan, the history and the current step", () => {
    const input = stepExecutorInput({ question: "Q?", plan: ["a", "b", "c"], doneCount: 1, history: "Step 1: a\nResult: 1", current: "b" });
    expect(input).toContain("Original question: Q?");
    expect(input).toContain("1. [done] a\n2. b   <- current\n3. c");
    expect(input).toContain("Steps done and their results:\nStep 1: a\nResult: 1");
    expect(input).toContain("Current step: b");
    expect(STEP_EXECUTOR_PROMPT).toMatch(/exactly one step/);
    expect(STEP_EXECUTOR_PROMPT).toMatch(/leave later steps alone/);
  });

  it("the replanner offers both verdicts and forbids repeating done steps", () => {
    const prompt = replannerPrompt({ question: "Q?", plan: ["a", "b"], doneCount: 1, history: "h" });
    expect(prompt).toContain('{"answer": "…"}');
    expect(prompt).toContain('{"steps": ["…"]}');
    expect(prompt).toMatch(/never the ones already done/);
    expect(prompt).toContain("Steps still planned:\n1. b");
  });

  it("the summary prompt keeps facts and names its word limit", () => {
    expect(historySummaryPrompt(120)).toMatch(/fact, number/);
    expect(historySummaryPrompt(120)).toContain("120 words");
  });
});
