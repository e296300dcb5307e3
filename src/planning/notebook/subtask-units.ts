import type { AgentEventInit } from "../../core/events.js";
import type { WorkUnit } from "../work-units.js";
import type { Plan, SubTask } from "./plan.js";

type Announced = { unit: WorkUnit; subtask: SubTask; plan: Plan };

/**
 * Keeps the `unit-start` / `unit-end` events a notebook announces in step with its plans. A
 * subtask is a unit while it is in progress; its unit id is the subtask's id, not its index, because
 * an index moves when a subtask is added or deleted before it, and a later subtask (or the next
 * plan's first one) would take it over. Every unit announced as started is finished exactly once,
 * however its subtask stopped being in progress: done, abandoned, set back, deleted, or its plan closed.
 */
export class SubtaskUnits {
  #live = new Map<string, Announced>();

  /**
   * The events for one committed change, finishes before starts: a turn that hands over belongs to
   * the new unit. `closed` holds the plans the change finished or archived, as they now are.
   */
  reconcile(current: Plan | null, closed: readonly Plan[] = []): AgentEventInit[] {
    const events: AgentEventInit[] = [];
    for (const [id, announced] of this.#live) {
      const now = current?.subtasks.find((subtask) => subtask.id === id);
      if (now?.state === "in_progress") continue;
      this.#live.delete(id);
      events.push({ type: "unit-end", unit: { ...announced.unit }, outcome: stoppedOutcome(announced, now, current, closed) });
    }
    for (const subtask of current?.subtasks ?? []) {
      if (subtask.state !== "in_progress" || this.#live.has(subtask.id)) continue;
      const unit = { kind: "subtask", id: subtask.id, title: subtask.name };
      this.#live.set(subtask.id, { unit, subtask, plan: current as Plan });
      events.push({ type: "unit-start", unit: { ...unit } });
    }
    return events;
  }

  /** After a load: the agent's history already knows the subtasks in progress; only later changes are announced. */
  reset(current: Plan | null): void {
    this.#live = new Map();
    for (const subtask of current?.subtasks ?? []) {
      if (subtask.state === "in_progress") {
        this.#live.set(subtask.id, { unit: { kind: "subtask", id: subtask.id, title: subtask.name }, subtask, plan: current as Plan });
      }
    }
  }
}

function stoppedOutcome(announced: Announced, now: SubTask | undefined, current: Plan | null, closed: readonly Plan[]): string {
  if (now?.state === "done") return now.outcome ?? "";
  if (now?.state === "abandoned") return "Abandoned before it was finished.";
  if (now?.state === "todo") return "Set back to todo before it was finished.";
  if (announced.plan.id === current?.id) return "Deleted from the plan before it was finished.";
  const plan = closed.find((p) => p.id === announced.plan.id) ?? announced.plan;
  return `Left unfinished: its plan '${plan.name}' was closed as ${plan.state}.`;
}
