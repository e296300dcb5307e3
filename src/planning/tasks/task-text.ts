import { openBlockers } from "./task-graph.js";
import { compareTaskIds } from "./task.js";
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

/** What TaskList is asked to show. */
export type TaskListFilter = {
  status?: TaskState;
  owner?: string;
  /** Only tasks free to claim: pending, no open blockers, no owner. */
  ready?: boolean;
  limit: number;
};

/** How many lines TaskList shows when not told: about 2,000 tokens however large the board. */
export const TASK_LIST_DEFAULT_LIMIT = 50;

// Subjects come from the model; a line never echoes more of one than this.
const MAX_SUBJECT_SHOWN = 160;

/**
 * TaskList's answer: a one-line summary of the whole board, then the matching tasks in id order, at
 * most `limit` of them. When some are left out, open work is kept first (in progress, then ready,
 * then blocked, then completed) and a last line says how many were left out and how to see them.
 */
export function taskListView(tasks: readonly Task[], filter: TaskListFilter): string {
  if (tasks.length === 0) return taskListText(tasks);
  const stateOf = stateLookup(tasks);
  const isReady = (task: Task) => task.state === "pending" && task.owner === null && openBlockers(task, stateOf).length === 0;
  const counts = { pending: 0, in_progress: 0, completed: 0, ready: 0 };
  for (const task of tasks) {
    counts[task.state]++;
    if (isReady(task)) counts.ready++;
  }
  const summary = `${tasks.length} task${tasks.length === 1 ? "" : "s"}: ${counts.in_progress} in progress, ${counts.pending} pending (${counts.ready} ready to start), ${counts.completed} completed.`;
  const matching = tasks.filter(
    (task) =>
      (filter.status === undefined || task.state === filter.status) &&
      (filter.owner === undefined || task.owner === filter.owner) &&
      (filter.ready !== true || isReady(task)),
  );
  const rank = (task: Task) => (task.state === "in_progress" ? 0 : isReady(task) ? 1 : task.state === "pending" ? 2 : 3);
  const shown =
    matching.length <= filter.limit
      ? matching
      : [...matching].sort((a, b) => rank(a) - rank(b) || compareTaskIds(a.id, b.id)).slice(0, filter.limit).sort((a, b) => compareTaskIds(a.id, b.id));
  const lines = shown.map((task) => taskLine(boundedSubject(task), stateOf));
  const filtered = filter.status !== undefined || filter.owner !== undefined || filter.ready === true;
  if (matching.length === 0) lines.push(filtered ? "No task matches these filters." : "");
  const left = matching.length - shown.length;
  if (left > 0) {
    lines.push(`… ${left} more ${filtered ? "matching " : ""}task${left === 1 ? "" : "s"} not shown (open work is listed first): narrow with status, owner or ready, or raise limit.`);
  }
  return [summary, ...lines.filter((line) => line !== "")].join("\n");
}

function boundedSubject(task: Task): Task {
  if (task.subject.length <= MAX_SUBJECT_SHOWN) return task;
  return { ...task, subject: `${task.subject.slice(0, MAX_SUBJECT_SHOWN)}… (${task.subject.length} characters; TaskGet shows all)` };
}
