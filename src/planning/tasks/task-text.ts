import { boundedText } from "../../core/bounded-quote.js";
import { EXTERNAL_ID_KEY, openBlockers } from "./task-graph.js";
import { isFiltered, taskListPage, type TaskListFilter, type TaskListPage } from "./task-list-view.js";
import type { Task, TaskState } from "./task.js";

export type { TaskListFilter } from "./task-list-view.js";

/** How the tools show tasks to the model. */

export type StateLookup = (id: string) => TaskState | undefined;

export function stateLookup(tasks: readonly Task[]): StateLookup {
  const states = new Map(tasks.map((task) => [task.id, task.state]));
  return (id) => states.get(id);
}

const ids = (list: readonly string[]) => list.map((id) => `#${id}`).join(", ");

// Outside ids come from an import or the model's metadata; a line shows at most this much of one.
const MAX_EXTERNAL_ID_SHOWN = 60;

/** The outside id an imported task keeps ("PROJ-1"), when it has one. */
export function externalIdOf(task: Task): string | undefined {
  const id = task.metadata[EXTERNAL_ID_KEY];
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** `#8`, or `#8 (PROJ-1)` for a task with an outside id: how lines and results name a task. */
export function taskName(task: Task): string {
  const outside = externalIdOf(task);
  return outside === undefined ? `#${task.id}` : `#${task.id} (${boundedText(outside, MAX_EXTERNAL_ID_SHOWN)})`;
}

/** One compact line: id (and outside id), status, subject, owner, open blockers, and which blockers are already done. */
export function taskLine(task: Task, stateOf: StateLookup): string {
  const owner = task.owner ? ` (owner: ${task.owner})` : "";
  const open = openBlockers(task, stateOf);
  const done = task.blockedBy.filter((id) => !open.includes(id));
  const parts: string[] = [];
  if (open.length > 0) parts.push(`blocked by ${ids(open)}`);
  if (done.length > 0) parts.push(`${ids(done)} done`);
  const blockers = parts.length > 0 ? ` — ${parts.join("; ")}` : "";
  return `${taskName(task)} [${task.state}] ${task.subject}${owner}${blockers}`;
}

export function taskListText(tasks: readonly Task[]): string {
  if (tasks.length === 0) return "The task board is empty. Use TaskCreate to add tasks when the work has three or more steps.";
  const stateOf = stateLookup(tasks);
  return tasks.map((task) => taskLine(task, stateOf)).join("\n");
}

export function taskDetailText(task: Task, stateOf: StateLookup): string {
  const outside = externalIdOf(task);
  const withStates = (list: readonly string[]) =>
    list.length === 0 ? "none" : list.map((id) => `#${id} (${stateOf(id) ?? "deleted"})`).join(", ");
  return [
    `Task #${task.id}: ${task.subject}`,
    ...(outside === undefined ? [] : [`Outside id: ${boundedText(outside, MAX_EXTERNAL_ID_SHOWN)}`]),
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

/** How many lines TaskList shows when not told: about 2,000 tokens however large the board. */
export const TASK_LIST_DEFAULT_LIMIT = 50;

// Subjects come from the model; a line never echoes more of one than this.
const MAX_SUBJECT_SHOWN = 160;

/**
 * TaskList's answer for a board held whole (the CLI's `tasks list` over any store): see renderTaskList.
 */
export function taskListView(tasks: readonly Task[], filter: TaskListFilter): string {
  return renderTaskList(taskListPage(tasks, filter), filter);
}

/**
 * TaskList's answer: a one-line summary of the whole board, then the page's tasks in id order. When
 * some were left out (open work is kept first: in progress, then ready, then other pending, then
 * completed), a last line says how many and how to see them.
 */
export function renderTaskList(page: TaskListPage, filter: TaskListFilter): string {
  const { counts } = page;
  const total = counts.pending + counts.in_progress + counts.completed;
  if (total === 0) return taskListText([]);
  const summary = `${total} task${total === 1 ? "" : "s"}: ${counts.in_progress} in progress, ${counts.pending} pending (${counts.ready} ready to start), ${counts.completed} completed.`;
  const shownStates = new Map(page.tasks.map((task) => [task.id, task.state]));
  const stateOf: StateLookup = (id) => shownStates.get(id) ?? page.blockerStates[id];
  const lines = page.tasks.map((task) => taskLine(boundedSubject(task), stateOf));
  const filtered = isFiltered(filter);
  if (page.matching === 0) lines.push(filtered ? "No task matches these filters." : "");
  const left = page.matching - page.tasks.length;
  if (left > 0) {
    lines.push(`… ${left} more ${filtered ? "matching " : ""}task${left === 1 ? "" : "s"} not shown (open work is listed first): narrow with status, owner or ready, or raise limit.`);
  }
  return [summary, ...lines.filter((line) => line !== "")].join("\n");
}

function boundedSubject(task: Task): Task {
  if (task.subject.length <= MAX_SUBJECT_SHOWN) return task;
  return { ...task, subject: `${task.subject.slice(0, MAX_SUBJECT_SHOWN)}… (${task.subject.length} characters; TaskGet shows all)` };
}
