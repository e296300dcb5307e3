import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../core/tool.js";
import { scriptedModel } from "../../../models/scripted.js";
import type { WorkflowState } from "../workflow.js";
import { Rewoo } from "./rewoo.js";

function countingLookup() {
  const calls: string[] = [];
  const tool = defineTool({
    name: "lookup",
    description: "Look a fact up.",
    parameters: z.object({ query: z.string() }),
    readOnly: true,
    execute: ({ query }) => {
      calls.push(query);
      return `fact(${query})`;
    },
  });
  return { tool, calls };
}

const plan = JSON.stringify({
  steps: [
    { plan: "first", tool: "lookup", input: { query: "q1" } },
    { plan: "second", tool: "lookup", input: { query: "q2 after #E1" } },
    { plan: "third", tool: "lookup", input: { query: "q3" } },
  ],
});
const solver = () => scriptedModel([(req) => `answer from ${String(req.messages[0]?.content).match(/Evidence: .*/g)?.join(" | ")}`]);
const json = (state: WorkflowState) => JSON.parse(JSON.stringify(state)) as WorkflowState;

describe("Rewoo resumed from a checkpoint", () => {
  it("after an abort, works only the steps that have no evidence yet and does not plan again", async () => {
    const first = countingLookup();
    const controller = new AbortController();
    const aborted = await new Rewoo({ model: scriptedModel([plan]), tools: [first.tool] }).run("Facts?", {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "workflow-step-end" && event.stepId === "#E1") controller.abort();
      },
    });
    expect(aborted.stopReason).toBe("aborted");
    expect(first.calls).toEqual(["q1"]);

    const second = countingLookup();
    const planner = scriptedModel([]);
    const done = await new Rewoo({ model: planner, solverModel: solver(), tools: [second.tool] }).run("Facts?", { state: json(aborted.state) });
    expect(second.calls).toEqual(["q2 after fact(q1)", "q3"]);
    expect(planner.requests).toHaveLength(0);
    expect(done).toMatchObject({ stopReason: "final", text: "answer from Evidence: fact(q1) | Evidence: fact(q2 after fact(q1)) | Evidence: fact(q3)" });
    expect(done.trace.steps.map((s) => s.id)).toEqual(["#E1", "#E2", "#E3"]);
  });

  it("fails when a checkpoint cannot be saved, and resumes from the last one saved: the unsaved step runs again", async () => {
    const first = countingLookup();
    const checkpoints: WorkflowState[] = [];
    const run = new Rewoo({ model: scriptedModel([plan]), tools: [first.tool] }).run("Facts?", {
      onCheckpoint: (state) => {
        // The plan and #E1 are saved; saving #E2 fails, as a store that went away would.
        if (checkpoints.length === 2) throw new Error("disk full");
        checkpoints.push(json(state));
      },
    });
    await expect(run).rejects.toThrow("disk full");
    expect(first.calls).toEqual(["q1", "q2 after fact(q1)"]);

    const second = countingLookup();
    const done = await new Rewoo({ model: scriptedModel([]), solverModel: solver(), tools: [second.tool] }).run("Facts?", { state: checkpoints.at(-1) as WorkflowState });
    expect(second.calls).toEqual(["q2 after fact(q1)", "q3"]);
    expect(done.stopReason).toBe("final");
  });
});
