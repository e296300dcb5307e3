import { describe, expect, it } from "vitest";
import { rewooPlannerPrompt, rewooRetryNote, rewooSolverPrompt } from "./rewoo-prompts.js";

describe("ReWOO prompts", () => {
  it("the planner prompt explains variables, lists the tools and the LLM worker, and the JSON shape", () => {
    const prompt = rewooPlannerPrompt("- lookup { query: string }: Look a fact up.");
    expect(prompt).toContain("#E1, #E2");
    expect(prompt).toMatch(/will not\s+see any tool result/);
    expect(prompt).toContain("- lookup { query: string }");
    expect(prompt).toContain("- LLM { input: string }");
    expect(prompt).toContain('{"steps": [{"plan"');
    expect(rewooRetryNote("bad ref")).toContain("bad ref");
  });

  it("the solver sees each step with its evidence and is warned that evidence can mislead", () => {
    const prompt = rewooSolverPrompt("T?", [{ id: "#E1", description: "d", tool: "lookup", input: { query: "x" } }], new Map([["#E1", "ev"]]));
    expect(prompt).toContain('Plan: d\n#E1 = lookup[{"query":"x"}]\nEvidence: ev');
    expect(prompt).toMatch(/irrelevant or an error/);
    expect(prompt).toContain("Task: T?");
  });
});
