import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentState } from "../../core/state.js";
import { scriptedModel } from "../../models/scripted.js";
import { PlanNotebook } from "./plan-notebook.js";

const PROPOSAL = {
  name: "Ship the release",
  description: "Cut, test and publish version 2.",
  expected_outcome: "Version 2 on the registry.",
  subtasks: [
    { name: "Cut", description: "Tag the release.", expected_outcome: "A tag." },
    { name: "Test", description: "Run the suite.", expected_outcome: "Green tests." },
    { name: "Publish", description: "Push the package.", expected_outcome: "A published package." },
  ],
};

const createPlan = { toolCalls: [{ name: "create_plan", arguments: PROPOSAL, id: "plan1" }] };
const toolResult = (messages: { role: string; content: string }[] | undefined) =>
  messages?.filter((m) => m.role === "tool").at(-1)?.content ?? "";
const hint = (messages: { content: string }[] | undefined) => messages?.at(-1)?.content ?? "";

async function pausedOnPlan(model = scriptedModel([createPlan, "Working on it."])) {
  const notebook = new PlanNotebook({ approvePlans: true });
  const agent = new Agent({ model, plugins: [notebook] });
  const paused = await agent.run("Release version 2.");
  return { notebook, agent, model, paused };
}

describe("plan notebook with plan approval", () => {
  it("pauses on create_plan before any plan exists, saved and resumable in a new agent", async () => {
    const { notebook, agent, paused } = await pausedOnPlan();
    expect(notebook.tools().find((t) => t.name === "create_plan")?.requiresApproval).toBe(true);
    expect(notebook.tools().find((t) => t.name === "revise_current_plan")?.requiresApproval).toBeUndefined();
    expect(paused.stopReason).toBe("awaiting-user");
    expect(paused.pending?.map((c) => [c.id, c.name, c.kind])).toEqual([["plan1", "create_plan", "approval"]]);
    expect(notebook.currentPlan).toBeNull();

    const saved = JSON.parse(JSON.stringify(agent.saveState())) as AgentState;
    const model = scriptedModel(["Working on it."]);
    // The earlier option name still asks for approval: a notebook resumed with it must not run plans unasked.
    const fresh = new PlanNotebook({ planApproval: true });
    const done = await new Agent({ model, plugins: [fresh] }).resume(saved, { plan1: { action: "approve" } });
    expect(done.stopReason).toBe("final");
    expect(toolResult(model.requests[0]?.messages)).toBe("Plan 'Ship the release' is created with 3 subtasks.");
    expect(fresh.currentPlan?.subtasks.map((s) => s.name)).toEqual(["Cut", "Test", "Publish"]);
  });

  it("creates the plan as the user edited it, tells the model exactly what changed, and hints the edited plan", async () => {
    const { notebook, agent, model } = await pausedOnPlan();
    const edited = structuredClone(PROPOSAL);
    edited.name = "Ship 2.0";
    edited.subtasks[1]!.name = "Run every test";
    edited.subtasks.splice(2, 0, { name: "Changelog", description: "Write the changelog.", expected_outcome: "CHANGELOG.md." });
    edited.subtasks.shift();
    await agent.resume(undefined, { plan1: { action: "edit", arguments: edited } });

    expect(notebook.currentPlan?.name).toBe("Ship 2.0");
    expect(notebook.currentPlan?.subtasks.map((s) => s.name)).toEqual(["Run every test", "Changelog", "Publish"]);
    const told = toolResult(model.requests[1]?.messages);
    expect(told).toBe(
      [
        "Plan 'Ship 2.0' is created with 3 subtasks.",
        "The user edited your proposal before approving it. Follow the plan as edited, not as you proposed it. What changed:",
        "- The plan's name is now 'Ship 2.0' (you proposed 'Ship the release').",
        "- Your subtask 'Cut' was removed.",
        "- Subtask 0 'Test' was renamed to 'Run every test'.",
        "- Subtask 1 'Changelog' was added. Description: Write the changelog. Expected outcome: CHANGELOG.md.",
        `The plan now reads:\n${notebook.currentPlan?.toMarkdown()}`,
      ].join("\n"),
    );
    expect(told).not.toContain("it ran with these arguments");
    expect(hint(model.requests[1]?.messages)).toContain("- [ ] Run every test\n- [ ] Changelog\n- [ ] Publish");
    // Memory records the call as it ran.
    const call = agent.memory.find((m) => m.role === "assistant" && m.toolCalls?.length);
    expect(call?.role === "assistant" && JSON.parse(call.toolCalls?.[0]?.arguments ?? "{}").name).toBe("Ship 2.0");
  });

  it("gives the model the user's feedback on a rejected plan, and pauses again on the next one", async () => {
    const model = scriptedModel([createPlan, (req) => ({ content: `noted: ${toolResult(req.messages)}`, toolCalls: [createPlan.toolCalls[0]!] }), "ok"]);
    const { notebook, agent } = await pausedOnPlan(model);
    const again = await agent.resume(undefined, { plan1: { action: "reject", reason: "Test before you cut the tag." } });
    expect(notebook.currentPlan).toBeNull();
    expect(again.stopReason).toBe("awaiting-user");
    expect(again.text).toBe("noted: The user rejected this call: Test before you cut the tag. Do not repeat it unchanged.");
  });

  it("without plan approval, create_plan runs at once", async () => {
    const notebook = new PlanNotebook();
    const result = await new Agent({ model: scriptedModel([createPlan, "done"]), plugins: [notebook] }).run("go");
    expect(result.stopReason).toBe("final");
    expect(notebook.currentPlan?.name).toBe("Ship the release");
  });
});
