import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../models/scripted.js";
import { Agent } from "./agent.js";
import type { ApprovalDecisions, PendingCall } from "./approval.js";
import type { AgentEvent } from "./events.js";
import type { AgentState } from "./state.js";
import { defineTool, ToolPause } from "./tool.js";

const inner = (n: number): PendingCall => ({ id: `inner-${n}`, name: "write_note", kind: "approval", arguments: JSON.stringify({ n }) });

/** A tool whose work waits for the user on `rounds` calls in turn, then reports every decision it got. */
function batchTool(rounds: number) {
  const resumedWith: { state: unknown; decisions: ApprovalDecisions }[] = [];
  const tool = defineTool({
    name: "batch",
    description: "Runs a batch of writes.",
    parameters: z.object({ size: z.number() }),
    execute: (_args, ctx) => {
      if (ctx.resumed) resumedWith.push(structuredClone(ctx.resumed));
      const round = resumedWith.length + 1;
      if (round <= rounds) throw new ToolPause([inner(round)], { round });
      return `batch done: ${resumedWith.map((r) => Object.values(r.decisions)[0]?.action).join(", ")}`;
    },
  });
  return { tool, resumedWith };
}

const caller = () =>
  scriptedModel([{ toolCalls: [{ name: "batch", arguments: { size: 2 }, id: "b1" }] }, (req) => `saw: ${String(req.messages.at(-1)?.content)}`]);
const saved = (agent: Agent) => JSON.parse(JSON.stringify(agent.saveState())) as AgentState;

describe("a tool that pauses (ToolPause)", () => {
  it("pauses the agent's run on the tool's own calls, and is called again with its state and their decisions", async () => {
    const { tool, resumedWith } = batchTool(1);
    const events: AgentEvent[] = [];
    const first = new Agent({ model: caller(), tools: [tool] });
    first.on((event) => events.push(event));
    const paused = await first.run("go");
    expect(paused.stopReason).toBe("awaiting-user");
    expect(paused.pending).toEqual([inner(1)]);
    // The batch call has not ended: its result is still to come.
    expect(events.filter((e) => e.type === "tool-end")).toEqual([]);
    expect(events.find((e) => e.type === "approval-requested")).toMatchObject({ calls: [inner(1)] });

    // Another agent, as another process would, from the saved state.
    const second = new Agent({ model: scriptedModel([(req) => `saw: ${String(req.messages.at(-1)?.content)}`]), tools: [tool] });
    const done = await second.resume(saved(first), { "inner-1": { action: "approve" } });
    expect(resumedWith).toEqual([{ state: { round: 1 }, decisions: { "inner-1": { action: "approve" } } }]);
    expect(done).toMatchObject({ stopReason: "final", text: "saw: batch done: approve" });
  });

  it("pauses again when the tool, resumed, waits on another call", async () => {
    const { tool } = batchTool(2);
    const agent = new Agent({ model: caller(), tools: [tool] });
    await agent.run("go");
    const again = await agent.resume(undefined, { "inner-1": { action: "reject", reason: "no" } });
    expect(again).toMatchObject({ stopReason: "awaiting-user", pending: [inner(2)] });
    expect(await agent.resume(undefined, { "inner-2": { action: "approve" } })).toMatchObject({ text: "saw: batch done: reject, approve" });
  });

  it("given up (a run killed after its decisions were applied), answers the paused call as interrupted", async () => {
    const { tool } = batchTool(1);
    const agent = new Agent({ model: caller(), tools: [tool] });
    await agent.run("go");
    agent.abandonPending();
    expect(agent.pending).toEqual([]);
    const done = await agent.continue();
    expect(done.text).toMatch(/^saw: Interrupted: the run stopped before this call's result was recorded/);
  });

  it("an edited call that pauses goes on with the user's arguments, not the model's", async () => {
    const sizes: number[] = [];
    const tool = defineTool({
      name: "batch",
      description: "Runs a batch of writes.",
      parameters: z.object({ size: z.number() }),
      requiresApproval: true,
      execute: ({ size }, ctx) => {
        sizes.push(size);
        if (!ctx.resumed) throw new ToolPause([inner(1)], {});
        return `batch of ${size} done`;
      },
    });
    const agent = new Agent({ model: caller(), tools: [tool] });
    const held = await agent.run("go");
    expect(held.pending).toMatchObject([{ id: "b1", kind: "approval" }]);
    const paused = await agent.resume(undefined, { b1: { action: "edit", arguments: { size: 5 } } });
    expect(paused.pending).toEqual([inner(1)]);
    const done = await agent.resume(saved(agent), { "inner-1": { action: "approve" } });
    expect(sizes).toEqual([5, 5]);
    expect(done.text).toBe("saw: batch of 5 done");
  });
});
