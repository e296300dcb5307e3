// The hint is observable: each one the notebook appends is also an event, so a CLI or viewer can
// show what the model was told (AgentScope prints it with print_hint_msg).
import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { scriptedModel } from "../../models/scripted.js";
import { PlanNotebook } from "./plan-notebook.js";

const plan = { name: "Report", description: "Write it.", expected_outcome: "A report.", subtasks: [{ name: "Write", description: "Write.", expected_outcome: "Text." }] };

describe("hint-added events", () => {
  it("carry exactly the hint appended to each request, with its step and the call it recommends", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "create_plan", arguments: plan }] },
      { toolCalls: [{ name: "update_subtask_state", arguments: { subtask_idx: 0, state: "in_progress" } }] },
      "Working on it.",
    ]);
    const agent = new Agent({ name: "writer", model, plugins: [new PlanNotebook()] });
    const hints: Extract<AgentEvent, { type: "hint-added" }>[] = [];
    agent.on((event) => {
      if (event.type === "hint-added") hints.push(event);
    });
    await agent.run("Write me a report.");

    expect(hints.map((h) => h.text)).toEqual(model.requests.map((r) => r.messages.at(-1)?.content));
    expect(hints.map((h) => [h.agent, h.plugin, h.step])).toEqual([
      ["writer", "plan_notebook", 1],
      ["writer", "plan_notebook", 2],
      ["writer", "plan_notebook", 3],
    ]);
    expect(hints[0]?.next).toBeUndefined();
    expect(hints[1]?.next).toEqual({ tool: "update_subtask_state", args: { subtask_idx: 0, state: "in_progress" }, modelWrites: {} });
    expect(hints[2]?.next).toMatchObject({ tool: "finish_subtask", args: { subtask_idx: 0 } });
  });

  it("go only to the agent whose request got the hint, and a custom hint's too", async () => {
    const notebook = new PlanNotebook({ planToHint: () => "Custom." });
    const first = new Agent({ name: "a", model: scriptedModel(["ok"]), plugins: [notebook] });
    const second = new Agent({ name: "b", model: scriptedModel([]), plugins: [notebook] });
    const seen: string[] = [];
    first.on((e) => e.type === "hint-added" && seen.push(`a:${e.text}`));
    second.on((e) => e.type === "hint-added" && seen.push(`b:${e.text}`));
    await first.run("hi");
    expect(seen).toEqual(["a:<system-hint>Custom.</system-hint>"]);
  });
});
