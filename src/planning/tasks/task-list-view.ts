import { openBlockers } from "./task-graph.js";
import { compareTaskIds, countByState, type Task, type TaskState } from "./task.js";

/** What TaskList is asked to show. */
export type TaskListFilter = {
  status?: TaskState;
  owner?: string;
  /** Only tasks free to claim: pending, no open blockers, no owner. */
  ready?: boolean;
  limit: number;
};

/** How many tasks are in each state, and how many of the pending ones are free to start. */
export type TaskCounts = Record<TaskState, number> & { ready: number };

/**
 * TaskList's view as a store computes it, where the tasks live: counts of the whole board, how many
 * tasks match the filter, and at most `limit` of them. When not all fit, open work comes first (in
 * progress, then ready, then other pending, then completed: `viewRank`); the page is in id order.
 */
export type TaskListPage = {
  counts: TaskCounts;
  matching: number;
  tasks: Task[];
  /** The state of each task a shown task waits on; a blocker missing here was deleted, which counts as done. */
  blockerStates: Record<string, TaskState>;
};

/** Free to claim: pending, no owner, and every blocker completed (or deleted). */
export function isReady(task: Task, stateOf: (id: string) => TaskState | undefined): boolean {
  return task.state === "pending" && task.owner === null && openBlockers(task, stateOf).length === 0;
}

/** Which tasks a view keeps when not all fit: 0 in progress, 1 ready, 2 other pending, 3 completed. */
export function viewRank(task: Task, ready: boolean): number {
  return task.state === "in_progress" ? 0 : ready ? 1 : task.state === "pending" ? 2 : 3;
}

/** The groups of viewRank, in rank order, as a database reads them: each group by its own query. */
const VIEW_GROUPS = [
  { rank: 0, state: "in_progress", ready: false },
  { rank: 1, state: "pending", ready: true },
  { rank: 2, state: "pending", ready: false },
  { rank: 3, state: "completed", ready: false },
] as const;

export type ViewGroup = (typeof VIEW_GROUPS)[number];

/** The groups that can hold a task matching `filter` (a ready task has no owner, so an owner filter skips that group). */
export function viewGroups(filter: TaskListFilter): ViewGroup[] {
  return VIEW_GROUPS.filter(
    (group) =>
      (filter.status === undefined || group.state === filter.status) &&
      (filter.ready !== true || group.ready) &&
      (filter.owner === undefined || !group.ready),
  );
}

/** Whether `task` passes the filter's status and owner (readiness is checked by the caller, who knows the blockers). */
export function matchesFilter(task: Task, filter: TaskListFilter): boolean {
  return (filter.status === undefined || task.state === filter.status) && (filter.owner === undefined || task.owner === filter.owner);
}

/** The page of a board held whole in memory (the memory store, and stores without a view of their own). */
export function taskListPage(tasks: readonly Task[], filter: TaskListFilter): TaskListPage {
  const states = new Map(tasks.map((task) => [task.id, task.state]));
  const stateOf = (id: string) => states.get(id);
  const counts: TaskCounts = { ...countByState(states.values()), ready: 0 };
  const matching: { task: Task; rank: number }[] = [];
  for (const task of tasks) {
    const ready = isReady(task, stateOf);
    if (ready) counts.ready++;
    if (matchesFilter(task, filter) && (filter.ready !== true || ready)) matching.push({ task, rank: viewRank(task, ready) });
  }
  const shown = matching
    .sort((a, b) => a.rank - b.rank || compareTaskIds(a.task.id, b.task.id))
    .slice(0, filter.limit)
    .map(({ task }) => task)
    .sort((a, b) => compareTaskIds(a.id, b.id));
  const blockerStates: Record<string, TaskState> = {};
  for (const task of shown) for (const id of task.blockedBy) if (states.has(id)) blockerStates[id] = states.get(id) as TaskState;
  return { counts, matching: matching.length, tasks: shown, blockerStates };
}

/** Whether a filter narrows the view (TaskList's answer then says "matching"). */
export function isFiltered(filter: TaskListFilter): boolean {
  return filter.status !== undefined || filter.owner !== undefined || filter.ready === true;
}

/** How many tasks match a filter without an owner, read from the board's counts. */
export function matchingFromCounts(counts: TaskCounts, filter: TaskListFilter): number {
  if (filter.ready === true) return filter.status === undefined || filter.status === "pending" ? counts.ready : 0;
  if (filter.status !== undefined) return counts[filter.status];
  return counts.pending + counts.in_progress + counts.completed;
}
