import type { AgentEventInit } from "../../core/events.js";
import type { WorkUnit } from "../work-units.js";
import type { Task } from "./task.js";

/**
 * The `unit-start` / `unit-end` events for one task's change (`after` undefined: deleted). A
 * task is a unit while it is in progress; one that stops being in progress without being completed
 * is finished too, with an outcome saying so, so no unit stays open for ever.
 */
export function taskUnitEvents(before: Task | undefined, after: Task | undefined): AgentEventInit[] {
  const task = after ?? before;
  if (!task) return [];
  const unit: WorkUnit = { kind: "task", id: task.id, title: task.subject };
  const wasInProgress = before?.state === "in_progress";
  if (after?.state === "completed" && before?.state !== "completed") {
    return [{ type: "unit-end", unit, outcome: completedOutcome(after) }];
  }
  if (after?.state === "in_progress" && !wasInProgress) return [{ type: "unit-start", unit }];
  if (wasInProgress && after === undefined) return [{ type: "unit-end", unit, outcome: "Deleted while in progress." }];
  if (wasInProgress && after?.state === "pending") return [{ type: "unit-end", unit, outcome: "Set back to pending before it was completed." }];
  return [];
}

/** The subject, and the `result` the worker recorded in the task's metadata, if any. */
function completedOutcome(task: Task): string {
  const result = task.metadata["result"];
  if (result === undefined || result === null) return task.subject;
  return `${task.subject} — result: ${typeof result === "string" ? result : JSON.stringify(result)}`;
}
