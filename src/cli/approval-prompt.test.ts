import { describe, expect, it } from "vitest";
import { askForDecisions, askPlanDecision, promptingApprover, readEditedSteps, type DecisionPrompter } from "./approval-prompt.js";

function scriptedPrompter(answers: (string | null)[], edits: string[]): DecisionPrompter & { output: string } {
  const prompter = {
    output: "",
    ask: async (question: string) => {
      prompter.output += question;
      return answers.length > 0 ? (answers.shift() as string | null) : null;
    },
    write: (text: string) => void (prompter.output += text),
    edit: async () => edits.shift() ?? "",
  };
  return prompter;
}

describe("plan approval in the terminal", () => {
  it("reads edited steps one per line or as a JSON array, and refuses an empty or malformed plan", () => {
    expect(readEditedSteps("Read a\n\n  Write b  \n")).toEqual({ steps: ["Read a", "Write b"] });
    expect(readEditedSteps('["Read a", "Write b"]')).toEqual({ steps: ["Read a", "Write b"] });
    expect(readEditedSteps("\n \n")).toEqual({ error: "The plan needs at least one step" });
    expect(readEditedSteps("[1, 2]")).toEqual({ error: "The JSON must be an array of strings" });
    expect(readEditedSteps('["a",')).toMatchObject({ error: expect.stringMatching(/^That is not valid JSON/) });
  });

  it("shows the steps, asks again after an unusable edit, and returns the user's decision", async () => {
    const plan = { task: "Report", steps: ["Read a", "Write b"] };
    const prompter = scriptedPrompter(["e", "e"], ["", "Read a\nCheck b\nWrite b\n"]);
    expect(await askPlanDecision(plan, prompter)).toEqual({ action: "edit", steps: ["Read a", "Check b", "Write b"] });
    expect(prompter.output).toContain('The planner proposes this plan for "Report":\n  1. Read a\n  2. Write b\n');
    expect(prompter.output).toContain("The plan needs at least one step; nothing changed.");
    expect(await askPlanDecision(plan, scriptedPrompter(["r too many reads"], []))).toEqual({ action: "reject", feedback: "too many reads" });
    expect(await askPlanDecision(plan, scriptedPrompter(["maybe", "yes"], []))).toEqual({ action: "approve" });
    expect(await askPlanDecision(plan, scriptedPrompter([null], []))).toBeNull();
  });

  it("says why it asks again when the user's last edit could not run", async () => {
    const prompter = scriptedPrompter(["a"], []);
    const problem = 'Your edited plan "[\\"x\\"]" was not used: the step has no tool.';
    const call = { id: "plan-1", name: "plan", kind: "plan" as const, arguments: JSON.stringify({ task: "Report", steps: ["Read a"], problem }) };
    expect(await askForDecisions([call], promptingApprover(prompter))).toEqual({ "plan-1": { action: "approve" } });
    expect(prompter.output).toContain(`${problem}\n\nThe planner proposes this plan for "Report"`);
  });
});

describe("questions in the terminal", () => {
  it("shows an ask_user call's raw arguments when they are not the JSON it expects, instead of crashing", async () => {
    const prompter = scriptedPrompter(["blue", "green", "soon"], []);
    const question = (id: string, args: string) => ({ id, name: "ask_user", arguments: args, kind: "question" as const });
    const decisions = await askForDecisions(
      [question("q1", "{not json"), question("q2", '{"question": 42}'), question("q3", '{"question": "When?"}')],
      promptingApprover(prompter),
    );
    expect(decisions).toEqual({
      q1: { action: "answer", text: "blue" },
      q2: { action: "answer", text: "green" },
      q3: { action: "answer", text: "soon" },
    });
    expect(prompter.output).toContain("The agent asks: {not json\n");
    expect(prompter.output).toContain('The agent asks: {"question": 42}\n');
    expect(prompter.output).toContain("The agent asks: When?\n");
  });

  it("asks a tool's question (an MCP server's) as the tool put it, and /decline rejects it", async () => {
    const asked = (id: string) => ({
      id,
      name: "ask_user",
      arguments: JSON.stringify({ question: 'MCP server "rooms" asks: Which room?', asker: 'MCP server "rooms"' }),
      kind: "question" as const,
    });
    const prompter = scriptedPrompter(['{"room": "Turing"}', " /decline "], []);
    const decisions = await askForDecisions([asked("a"), asked("b")], promptingApprover(prompter));
    expect(decisions).toEqual({ a: { action: "answer", text: '{"room": "Turing"}' }, b: { action: "reject", reason: "the user declined to answer" } });
    expect(prompter.output).toContain('\nMCP server "rooms" asks: Which room?\nyour answer (or /decline) > ');
    expect(prompter.output).not.toContain("The agent asks");
  });
});
