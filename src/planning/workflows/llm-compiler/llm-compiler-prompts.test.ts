import { describe, expect, it } from "vitest";
import { compilerPlannerPrompt, compilerReplanInput, joinerPrompt } from "./llm-compiler-prompts.js";

const done = [
  { id: 1, call: 'lookup({"query":"a"})', result: "<a>", isError: false },
  { id: 2, call: 'lookup({"query":"b"})', result: "timeout", isError: true },
];

describe("LLM compiler prompts", () => {
  it("the planner prompt explains parallel start, the line format, $n references and join", () => {
    const prompt = compilerPlannerPrompt("- lookup { query: string }: Look up.");
    expect(prompt).toMatch(/start while you are still writing/);
    expect(prompt).toContain("- lookup { query: string }");
    expect(prompt).toContain('{"id": 1, "tool": "tool name", "args": {"argument": "value"}}');
    expect(prompt).toContain('"$n"');
    expect(prompt).toMatch(/only use tasks above it/);
    // How a reference is told from a price, and how a literal dollar sign is written.
    expect(prompt).toContain('"${n}"');
    expect(prompt).toMatch(/any other "\$" is plain text/);
    expect(prompt).toContain('"$$2 off"');
    expect(prompt).toContain('{"tool": "join"}');
  });

  it("the replan input lists finished tasks, forbids rerunning them and gives the next number", () => {
    const input = compilerReplanInput({ done, reason: "b failed", errors: ["Task 3 refers to task 9"], nextId: 3 });
    expect(input).toContain("Why: b failed");
    expect(input).toContain("never run them again");
    expect(input).toContain('1. lookup({"query":"a"}) -> <a>');
    expect(input).toContain("2. lookup({\"query\":\"b\"}) -> ERROR: timeout");
    expect(input).toContain("- Task 3 refers to task 9");
    expect(input).toContain("Number new tasks from 3.");
  });

  it("the joiner offers finish or replan, and only finish in the last round", () => {
    const open = joinerPrompt({ task: "T", done, errors: [], lastRound: false });
    expect(open).toContain('{"action": "finish", "answer": "…"}');
    expect(open).toContain('{"action": "replan", "reason": "…"}');
    expect(open).toContain("Task: T");
    const last = joinerPrompt({ task: "T", done, errors: [], lastRound: true });
    expect(last).not.toContain('"replan"');
    expect(last).toMatch(/last planning round/);
  });
});
