import { describe, expect, it } from "vitest";
import { PLAN_TOOL_DESCRIPTION, plannerSystemPrompt, planRetryNote, SUBTASK_SYSTEM_PROMPT, subtaskInput } from "./plan-tool-prompts.js";

describe("plan tool prompts", () => {
  it("the tool description says when to plan and when to act directly", () => {
    expect(PLAN_TOOL_DESCRIPTION).toMatch(/multi-step/);
    expect(PLAN_TOOL_DESCRIPTION).toMatch(/act directly/);
    expect(PLAN_TOOL_DESCRIPTION).toMatch(/read-only/);
  });

  it("the planner prompt forbids changes, names the limit and the exact JSON shape", () => {
    const prompt = plannerSystemPrompt(5);
    expect(prompt).toMatch(/never .*change/);
    expect(prompt).toContain("1 to 5 subtasks");
    expect(prompt).toContain('{"subtasks": [');
    expect(prompt).toMatch(/check that the change works/);
  });

  it("the retry note repeats the problem and the expected shape", () => {
    const note = planRetryNote("The reply is not valid JSON.");
    expect(note).toContain("The reply is not valid JSON.");
    expect(note).toContain('{"subtasks"');
  });

  it("a subtask sees the task, the plan, earlier results and only its own step", () => {
    expect(SUBTASK_SYSTEM_PROMPT).toMatch(/Do not make a new plan/);
    const input = subtaskInput("Ship it", ["build", "test"], 1, ["built"]);
    expect(input).toContain("Overall task: Ship it");
    expect(input).toContain("2. test   <- yours");
    expect(input).toContain("Subtask 1: built");
    expect(input).toContain("Your subtask (2 of 2): test");
  });
});
