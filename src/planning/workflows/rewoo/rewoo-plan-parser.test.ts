import { describe, expect, it } from "vitest";
import { parseRewooPlan, readEditedRewooPlan } from "./rewoo-plan-parser.js";

const tools = ["search", "calculator"];

describe("parseRewooPlan", () => {
  it("reads the reference's text form, with the variable on the plan line or the next one", () => {
    const text = [
      "Plan: Find the city's population. #E1 = search[population of Lyon]",
      "Plan: Double it.",
      "#E2 = calculator[#E1 * 2]",
      "Plan: Phrase it. #E3 = LLM[Say #E2 [people] politely]",
    ].join("\n");
    expect(parseRewooPlan({ role: "assistant", content: text }, tools)).toEqual({
      steps: [
        { id: "#E1", description: "Find the city's population.", tool: "search", input: "population of Lyon" },
        { id: "#E2", description: "Double it.", tool: "calculator", input: "#E1 * 2" },
        { id: "#E3", description: "Phrase it.", tool: "LLM", input: "Say #E2 [people] politely" },
      ],
    });
  });

  it("reads JSON, numbering steps without ids", () => {
    const content = '```json\n{"steps": [{"plan": "look", "tool": "search", "input": {"query": "x"}}, {"tool": "LLM", "input": "sum #E1"}]}\n```';
    const parsed = parseRewooPlan({ role: "assistant", content }, tools);
    expect(parsed).toEqual({
      steps: [
        { id: "#E1", description: "look", tool: "search", input: { query: "x" } },
        { id: "#E2", description: "", tool: "LLM", input: "sum #E1" },
      ],
    });
  });

  it("reads tool calls as steps in order", () => {
    const parsed = parseRewooPlan(
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "search", arguments: '{"query": "x"}' },
          { id: "b", name: "calculator", arguments: '{"expression": "#E1 + 1"}' },
        ],
      },
      tools,
    );
    expect(parsed).toMatchObject({ steps: [{ id: "#E1", tool: "search" }, { id: "#E2", input: { expression: "#E1 + 1" } }] });
  });

  it("refuses unknown tools, later or missing variables and repeated ids, naming each", () => {
    const text = [
      "Plan: a #E1 = search[#E2]",
      "Plan: b #E2 = browse[x]",
      "Plan: c #E2 = LLM[#E7]",
    ].join("\n");
    const parsed = parseRewooPlan({ role: "assistant", content: text }, tools);
    expect("error" in parsed && parsed.error).toBe(
      [
        "The plan was refused:",
        "- #E1 uses #E2, which no earlier step defines.",
        '- #E2 uses the unknown tool "browse"; use one of: search, calculator, LLM.',
        "- #E2 uses #E7, which no earlier step defines.",
        "- #E2 is defined twice; give each step its own variable.",
      ].join("\n"),
    );
  });

  it("explains prose that is no plan at all", () => {
    const parsed = parseRewooPlan({ role: "assistant", content: "I would search first." }, tools);
    expect("error" in parsed && parsed.error).toMatch(/not valid JSON.*Plan:/s);
  });
});

describe("readEditedRewooPlan", () => {
  const step = "Plan: read it #E1 = read_note[first]";

  it("reads one step a line, and names every line that is not one instead of dropping it", () => {
    expect(readEditedRewooPlan([step], ["read_note"])).toEqual({ steps: [{ id: "#E1", description: "read it", tool: "read_note", input: "first" }] });
    const two = `${step} ${step.replace("#E1", "#E2")}`;
    expect(readEditedRewooPlan([step, "then write it", two, `Plan: ${"x".repeat(100)}`], ["read_note"])).toEqual({
      error: `Not a step: line 2, "then write it"; line 3, ${JSON.stringify(two)}; line 4, ${JSON.stringify(`Plan: ${"x".repeat(74)}`)}… (26 more characters left out). Write each step as one line, "Plan: <why> #E1 = tool[input]".`,
    });
  });

  it("refuses what a planner's plan is refused for, saying the form", () => {
    expect(readEditedRewooPlan(["Plan: wipe #E1 = erase[all]"], ["read_note"])).toMatchObject({
      error: expect.stringMatching(/unknown tool "erase"[\s\S]*Write each step as one line/),
    });
  });
});
