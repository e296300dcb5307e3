import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../core/tool.js";
import { reactiveModel } from "../../../models/scripted.js";
import type { WorkflowState } from "../workflow.js";
import { LLMCompiler } from "./llm-compiler.js";

const PLAN = [
  '{"id": 1, "tool": "note", "args": {"name": "a"}}',
  '{"id": 2, "tool": "hold", "args": {"name": "b"}}',
  '{"id": 3, "tool": "note", "args": {"name": "c from $2"}}',
  '{"tool": "join"}',
].join("\n");
const model = () =>
  reactiveModel((req) => (String(req.messages.at(-1)?.content).startsWith("Decide whether") ? '{"action": "finish", "answer": "all noted"}' : PLAN));

function tools(hold: (signal: AbortSignal | undefined) => Promise<string>) {
  const calls: string[] = [];
  const note = defineTool({
    name: "note",
    description: "Notes a name.",
    parameters: z.object({ name: z.string() }),
    execute: ({ name }) => {
      calls.push(`note ${name}`);
      return `noted ${name}`;
    },
  });
  // Read-only: a read cut short is simply made again (a write would be answered as interrupted).
  const held = defineTool({
    name: "hold",
    description: "Holds a name until released.",
    parameters: z.object({ name: z.string() }),
    readOnly: true,
    execute: ({ name }, ctx) => {
      calls.push(`hold ${name}`);
      return hold(ctx.signal);
    },
  });
  return { calls, tools: [note, held] };
}

describe("an LLM-compiler run aborted mid-DAG", () => {
  it("stops with stopReason aborted and a state from which only the unfinished tasks run", async () => {
    const controller = new AbortController();
    let taskOneEnded!: () => void;
    const taskOne = new Promise<void>((resolve) => (taskOneEnded = resolve));
    const first = tools(async (signal) => {
      // Task 2 is in flight when the user stops the run, once task 1 has ended.
      await taskOne;
      controller.abort();
      signal?.throwIfAborted();
      return "not reached";
    });
    const aborted = await new LLMCompiler({ model: model(), tools: first.tools }).run("Note them", {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "workflow-step-end" && event.stepId === "1") taskOneEnded();
      },
    });
    expect(aborted.stopReason).toBe("aborted");
    expect(first.calls).toEqual(["note a", "hold b"]);
    const state = JSON.parse(JSON.stringify(aborted.state)) as WorkflowState;
    expect(state.trace.steps.map((s) => s.id)).toEqual(["1"]);

    const second = tools(async () => "held b");
    const done = await new LLMCompiler({ model: model(), tools: second.tools }).run("Note them", { state });
    expect(done).toMatchObject({ stopReason: "final", text: "all noted" });
    expect(second.calls).toEqual(["hold b", "note c from held b"]);
    expect(done.trace.steps.map((s) => s.id)).toEqual(["1", "2", "3"]);
  });
});
