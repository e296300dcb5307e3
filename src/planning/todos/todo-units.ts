import type { AgentEventInit } from "../../core/events.js";
import type { WorkUnit } from "../work-units.js";
import type { StoredTodo } from "./todo.js";

/**
 * The `unit-start` / `unit-end` events for one write: an item is a unit while it is in
 * progress. Its unit id is the item's stable id, which the list keeps across writes: by the id an
 * update names, and through a complete list by identical content (a stable key of its content that
 * still tells two items with the same text apart). An item that leaves the list or goes back to pending while in
 * progress is finished with an outcome saying so, so no unit stays open for ever. Finishes come
 * before starts: a write that hands over from one item to the next belongs to the next.
 */
export function todoUnitEvents(before: readonly StoredTodo[], after: readonly StoredTodo[]): AgentEventInit[] {
  const previous = new Map(before.map((item) => [item.id, item]));
  const finished: AgentEventInit[] = [];
  const started: AgentEventInit[] = [];
  for (const item of after) {
    const was = previous.get(item.id);
    previous.delete(item.id);
    if (item.status === "completed" && was?.status !== "completed") {
      finished.push({ type: "unit-end", unit: unitOf(item), outcome: item.content });
    } else if (item.status === "in_progress" && was?.status !== "in_progress") {
      started.push({ type: "unit-start", unit: unitOf(item) });
    } else if (item.status === "pending" && was?.status === "in_progress") {
      finished.push({ type: "unit-end", unit: unitOf(item), outcome: "Set back to pending before it was completed." });
    }
  }
  for (const dropped of previous.values()) {
    if (dropped.status === "in_progress") {
      finished.push({ type: "unit-end", unit: unitOf(dropped), outcome: "Removed from the list before it was completed." });
    }
  }
  return [...finished, ...started];
}

function unitOf(item: StoredTodo): WorkUnit {
  return { kind: "todo", id: String(item.id), title: item.content };
}
