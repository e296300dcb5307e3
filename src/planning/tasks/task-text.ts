import { openBlockers } from "./task-graph.js";
import type { Task, TaskState } from "./task.js";

/** How the tools show tasks to the model. */

export type StateLookup = (id: string) => TaskState | undefined;

export function stateLookup(tasks: readonly Task[]): StateLookup {
  const states = new Map(tasks.map((task) => [task.id, task.state]));
  return (id) => states.get(id);
}

const ids = (list: readonly string[]) => list.map((id) => `#${id}`).join(", ");

/** One compact line: id, status, subject, owner, open blockers, and which blockers are already done. */
export function taskLine(task: Task, stateOf: StateLookup): string {
  const owner = task.owner ? ` (owner: ${task.owner})` : "";
  const open = openBlockers(task, stateOf);
  const done = task.blockedBy.filter((id) => !open.includes(id));
  const parts: string[] = [];
  if (open.length > 0) parts.push(`blocked by ${ids(open)}`);
  if (done.length > 0) parts.push(`${ids(done)} done`);
  const blockers = parts.length > 0 ? ` — ${parts.join("; ")}` : "";
  return `#${task.id} [${task.state}] ${task.subject}${owner}${blockers}`;
}

export function taskListText(tasks: readonly Task[]): string {
  if (tasks.length === 0) return "The task board is empty. Use TaskCreate to add tasks when the work has three or more steps.";
  const stateOf = stateLookup(tasks);
  return tasks.map((task) => taskLine(task, stateOf)).join("\n");
}

export function taskDetailText(task: Task, stateOf: StateLookup): string {
  const withStates = (list: readonly string[]) =>
    list.length === 0 ? "none" : list.map((id) => `#${id} (${stateOf(id) ?? "deleted"})`).join(", ");
  return [
    `Task #${task.id}: ${task.subject}`,
    `Status: ${task.state}`,
    `Owner: ${task.owner ?? "none"}`,
    `Blocked by: ${withStates(task.blockedBy)}`,
    `Blocks: ${withStates(task.blocks)}`,
    `Metadata: ${Object.keys(task.metadata).length === 0 ? "none" : JSON.stringify(task.metadata)}`,
    `Created at: ${task.createdAt}`,
    "Description:",
    task.description || "(none)",
  ].join("\n");
}

/** Advisory dependency note for a task that was started while some blockers are still open. */
export function blockedNote(task: Task, open: readonly string[]): string {
  return `Note: task #${task.id} is still blocked by ${ids(open)}. Dependencies are advisory, so you may go on, but make sure you do not need their results first.`;
}

export function unblockedNote(freed: readonly string[]): string {
  return `Now free to start: ${ids(freed)}.`;
}
