import { describe, expect, it } from "vitest";
import { z } from "zod";
import { askUserTool } from "../../core/ask-user.js";
import { defineTool } from "../../core/tool.js";
import { scriptedModel } from "../../models/scripted.js";
import { Rewoo } from "./rewoo/rewoo.js";
import type { WorkflowState } from "./workflow.js";

const json = (state: WorkflowState) => JSON.parse(JSON.stringify(state)) as WorkflowState;

function setup(steps: { tool: string; input: Record<string, unknown> }[], permissions: ConstructorParameters<typeof Rewoo>[0]["permissions"] = {}) {
  const writes: string[] = [];
  const write = defineTool({
    name: "write_note",
    description: "Writes a note.",
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => {
      writes.push(text);
      return `wrote ${text}`;
    },
  });
  const plan = JSON.stringify({ steps: steps.map((step) => ({ plan: step.tool, ...step })) });
  const make = (turns: string[]) =>
    new Rewoo({
      model: scriptedModel(turns),
      solverModel: scriptedModel([(req) => String(req.messages[0]?.content).match(/Evidence: .*/g)?.join(" | ") ?? ""]),
      tools: [write, askUserTool()],
      permissions,
    });
  return { writes, first: make([plan]), later: () => make([]) };
}

describe("a workflow's own calls under a permission policy (ReWOO steps)", () => {
  it("holds a question for the user's answer, which becomes the step's evidence", async () => {
    const { first, later } = setup([{ tool: "ask_user", input: { question: "Which note?" } }]);
    const paused = await first.run("Note?");
    expect(paused.pending).toEqual([{ id: "step-#E1", name: "ask_user", kind: "question", arguments: '{"question":"Which note?"}' }]);
    const done = await later().run("Note?", { state: json(paused.state), decisions: { "step-#E1": { action: "answer", text: "the blue one" } } });
    expect(done).toMatchObject({ stopReason: "final", text: "Evidence: the blue one" });
  });

  it("refuses a denied call with the policy's words, and the steps that need it are not run", async () => {
    const { first, writes } = setup(
      [
        { tool: "write_note", input: { text: "hi" } },
        { tool: "write_note", input: { text: "after #E1" } },
      ],
      { tools: { write_note: "deny" } },
    );
    const done = await first.run("Note?");
    expect(done.text).toBe(
      'Evidence: Error: Denied: the permission policy does not allow "write_note" here. Do not retry it; find another way or tell the user. | ' +
        "Evidence: Not run: #E1, whose evidence it needs, failed.",
    );
    expect(writes).toEqual([]);
  });

  it("never asks about a call that could not run as written: the tool's error is the evidence", async () => {
    const { first } = setup([{ tool: "write_note", input: { text: 3 } }]);
    const done = await first.run("Note?");
    expect(done.stopReason).toBe("final");
    expect(done.text).toBe('Evidence: Error: Invalid arguments for tool "write_note":');
  });

  it("refuses decisions that do not answer the waiting calls, naming what is missing", async () => {
    const { first, later } = setup([{ tool: "write_note", input: { text: "hi" } }]);
    const paused = await first.run("Note?");
    await expect(later().run("Note?", { state: json(paused.state), decisions: {} })).rejects.toThrow(/missing: step-#E1 \(write_note\)/);
    await expect(later().run("Note?", { state: json(paused.state), decisions: { "step-#E1": { action: "answer", text: "x" } } })).rejects.toThrow(
      /needs approve, edit or reject/,
    );
  });
});
