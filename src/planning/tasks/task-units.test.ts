import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { scriptedModel } from "../../models/scripted.js";
import { MemoryTaskStore } from "./memory-task-store.js";
import { TaskBoard } from "./task-board.js";

/** A board attached to an agent, and the unit events it announces (as `started id title` / `finished id: outcome`). */
function watched(opts: ConstructorParameters<typeof TaskBoard>[0] = {}) {
  const board = new TaskBoard(opts);
  const agent = new Agent({ model: scriptedModel([]), plugins: [board] });
  const units: string[] = [];
  agent.on((e) => {
    if (e.type === "unit-start") units.push(`started ${e.unit.kind}:${e.unit.id} ${e.unit.title}`);
    if (e.type === "unit-end") units.push(`finished ${e.unit.kind}:${e.unit.id}: ${e.outcome}`);
  });
  return { board, units };
}

describe("TaskBoard units of work", () => {
  it("announces a task started and completed from inside TaskUpdate, with the subject and its result as the outcome", async () => {
    const board = new TaskBoard({ agentName: "ana" });
    await board.create({ subject: "Read the spec", description: "All of it." });
    const model = scriptedModel([
      { toolCalls: [{ name: "TaskUpdate", arguments: { task_id: "1", status: "in_progress" } }] },
      { toolCalls: [{ name: "TaskUpdate", arguments: { task_id: "1", status: "completed", metadata: { result: "3 open questions" } } }] },
      "Done.",
    ]);
    const agent = new Agent({ model, plugins: [board] });
    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    await agent.run("Work the board.");

    const seen = events
      .filter((e) => ["tool-start", "tool-end", "unit-start", "unit-end"].includes(e.type))
      .map((e) => e.type);
    expect(seen).toEqual(["tool-start", "unit-start", "tool-end", "tool-start", "unit-end", "tool-end"]);
    expect(events.filter((e) => e.type === "unit-start" || e.type === "unit-end")).toMatchObject([
      { agent: "agent", unit: { kind: "task", id: "1", title: "Read the spec" } },
      { unit: { kind: "task", id: "1", title: "Read the spec" }, outcome: "Read the spec — result: 3 open questions" },
    ]);
  });

  it("announces claims, completions without a result, and tasks that stop being in progress unfinished", async () => {
    const { board, units } = watched({ agentName: "ana" });
    for (const subject of ["One", "Two", "Three", "Four"]) await board.create({ subject, description: "" });
    await board.claimNext();
    await board.update("1", { state: "completed" });
    await board.update("2", { state: "in_progress" });
    await board.update("2", { state: "in_progress", owner: "bo" });
    await board.update("2", { state: "pending" });
    await board.update("3", { state: "in_progress" });
    await board.remove("3");
    await board.update("4", { subject: "Four, renamed" });
    await board.remove("4");
    expect(units).toEqual([
      "started task:1 One",
      "finished task:1: One",
      "started task:2 Two",
      "finished task:2: Set back to pending before it was completed.",
      "started task:3 Three",
      "finished task:3: Deleted while in progress.",
    ]);
  });

  it("announces only to the agents of the board instance the change went through", async () => {
    const store = new MemoryTaskStore();
    const mine = watched({ store, agentName: "ana" });
    const theirs = watched({ store, agentName: "bo" });
    await mine.board.create({ subject: "Shared", description: "" });
    await theirs.board.claimNext();
    await theirs.board.update("1", { state: "completed" });
    expect(mine.units).toEqual([]);
    expect(theirs.units).toEqual(["started task:1 Shared", "finished task:1: Shared"]);
  });
});
