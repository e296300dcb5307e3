import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { scriptedModel } from "../../models/scripted.js";
import { PlanNotebook } from "./plan-notebook.js";

const steps = (...names: string[]) => names.map((name) => ({ name, description: `Do ${name}.`, expectedOutcome: `${name} done.` }));

function tripPlan(name = "Trip") {
  return { name, description: "Plan a trip.", expectedOutcome: "Booked.", subtasks: steps("Flights", "Hotel", "Car") };
}

/** A notebook attached to an agent, and the unit events it announces (as `started id` / `finished id: outcome`). */
function watched() {
  const notebook = new PlanNotebook();
  const agent = new Agent({ model: scriptedModel([]), plugins: [notebook] });
  const units: string[] = [];
  agent.on((e) => {
    if (e.type === "unit-start") units.push(`started ${e.unit.kind}:${e.unit.id} ${e.unit.title}`);
    if (e.type === "unit-end") units.push(`finished ${e.unit.kind}:${e.unit.id}: ${e.outcome}`);
  });
  const idOf = (index: number) => notebook.currentPlan?.subtasks[index]?.id ?? "?";
  return { notebook, agent, units, idOf };
}

describe("PlanNotebook units of work", () => {
  it("announces a subtask started and finished from inside the tool call, and the next subtask started in the same call", async () => {
    const notebook = new PlanNotebook();
    await notebook.createPlan(tripPlan());
    const [flights, hotel] = (notebook.currentPlan?.subtasks ?? []).map((s) => s.id);
    const model = scriptedModel([
      { toolCalls: [{ name: "update_subtask_state", arguments: { subtask_idx: 0, state: "in_progress" } }] },
      { toolCalls: [{ name: "finish_subtask", arguments: { subtask_idx: 0, subtask_outcome: "Tickets AF123" } }] },
      "Booking the hotel next.",
    ]);
    const agent = new Agent({ model, plugins: [notebook] });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    await agent.run("Book the trip.");

    const seen = events
      .filter((e) => ["tool-start", "tool-end", "unit-start", "unit-end"].includes(e.type))
      .map((e) => (e.type === "tool-start" || e.type === "tool-end" ? `${e.type} ${e.call.name}` : e.type));
    expect(seen).toEqual([
      "tool-start update_subtask_state",
      "unit-start",
      "tool-end update_subtask_state",
      "tool-start finish_subtask",
      "unit-end",
      "unit-start",
      "tool-end finish_subtask",
    ]);
    const units = events.filter((e) => e.type === "unit-start" || e.type === "unit-end");
    expect(units).toMatchObject([
      { unit: { kind: "subtask", id: flights, title: "Flights" } },
      { unit: { kind: "subtask", id: flights, title: "Flights" }, outcome: "Tickets AF123" },
      { unit: { kind: "subtask", id: hotel, title: "Hotel" } },
    ]);
  });

  it("keeps a subtask's unit id when a subtask is added before it, so the newcomer at its old index is another unit", async () => {
    const { notebook, units, idOf } = watched();
    await notebook.createPlan(tripPlan());
    await notebook.finishSubtask(0, "Tickets");
    const hotel = idOf(1);
    // A subtask goes before the one in progress only once that one is set back to todo.
    await notebook.updateSubtaskState(1, "todo");
    await notebook.reviseCurrentPlan(1, "add", { name: "Visa", description: "Get a visa.", expectedOutcome: "A visa." });
    await notebook.updateSubtaskState(1, "in_progress");
    const visa = idOf(1);
    expect(visa).not.toBe(hotel);
    await notebook.finishSubtask(1, "Visa granted");
    expect(units.slice(-4)).toEqual([
      `finished subtask:${hotel}: Set back to todo before it was finished.`,
      `started subtask:${visa} Visa`,
      `finished subtask:${visa}: Visa granted`,
      `started subtask:${hotel} Hotel`,
    ]);
  });

  it("finishes a subtask in progress that is abandoned, deleted, or left behind by its plan, saying so", async () => {
    const { notebook, units, idOf } = watched();
    await notebook.createPlan(tripPlan());
    await notebook.updateSubtaskState(0, "in_progress");
    const flights = idOf(0);
    await notebook.updateSubtaskState(0, "abandoned");
    expect(units.at(-1)).toBe(`finished subtask:${flights}: Abandoned before it was finished.`);

    await notebook.updateSubtaskState(1, "in_progress");
    const hotel = idOf(1);
    await notebook.reviseCurrentPlan(1, "delete");
    expect(units.at(-1)).toBe(`finished subtask:${hotel}: Deleted from the plan before it was finished.`);

    await notebook.updateSubtaskState(1, "in_progress");
    const car = idOf(1);
    await notebook.createPlan(tripPlan("Second trip"));
    expect(units.at(-1)).toBe(`finished subtask:${car}: Left unfinished: its plan 'Trip' was closed as abandoned.`);

    await notebook.updateSubtaskState(0, "in_progress");
    expect(idOf(0)).not.toBe(flights);
    await notebook.finishPlan("abandoned", "Cancelled.");
    expect(units.at(-1)).toMatch(/^finished subtask:\w+: Left unfinished: its plan 'Second trip' was closed as abandoned\.$/);
    // Every unit started was finished exactly once.
    const started = units.filter((u) => u.startsWith("started")).map((u) => u.split(" ")[1]);
    const finished = units.filter((u) => u.startsWith("finished")).map((u) => u.split(" ")[1]?.replace(/:$/, ""));
    expect(finished).toEqual(started);
  });

  it("after a load, announces nothing for the subtask already in progress and finishes it under the same id", async () => {
    const first = watched();
    await first.notebook.createPlan(tripPlan());
    await first.notebook.updateSubtaskState(0, "in_progress");
    const flights = first.idOf(0);

    const second = watched();
    second.notebook.loadState(structuredClone(first.notebook.saveState()));
    await second.notebook.reviseCurrentPlan(0, "revise", { name: "Flights and trains" });
    expect(second.units).toEqual([]);
    await second.notebook.finishSubtask(0, "Tickets");
    expect(second.units[0]).toBe(`finished subtask:${flights}: Tickets`);
  });

  it("gives a created plan's subtasks new ids, even when it copies the current plan", async () => {
    const { notebook } = watched();
    const created = await notebook.createPlan(tripPlan());
    const copy = await notebook.createPlan(created);
    const ids = [...created.subtasks, ...copy.subtasks].map((s) => s.id);
    expect(new Set(ids).size).toBe(6);
  });
});
