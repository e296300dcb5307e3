import { compareTaskIds, isTaskId, TASK_STATES, TaskRuleError, type Task, type TaskChange, type TaskImport, type TaskState } from "./task.js";

/** The dependency graph as the edge rules need it: every task id, mapped to the ids it waits on. */
export type BlockerGraph = {
  has(id: string): boolean;
  get(id: string): readonly string[] | undefined;
  keys(): Iterable<string>;
};

/** A new edge: `blocked` cannot start until `blocker` is completed. */
export type Edge = { blocker: string; blocked: string };

/** The graph of a board held in memory, read from its tasks as they are (building nothing). */
export function blockerGraph(tasks: ReadonlyMap<string, Task>): BlockerGraph {
  return { has: (id) => tasks.has(id), get: (id) => tasks.get(id)?.blockedBy, keys: () => tasks.keys() };
}

/** `known` lists ids that exist (some of them, when `total` says how many there are in all). */
export function unknownTaskError(id: string, known: Iterable<string>, total?: number): TaskRuleError {
  const ids = [...known].sort(compareTaskIds);
  const listed = ids.length === 0 ? "the board is empty" : `existing ids: ${summarizeIds(ids, total ?? ids.length)}`;
  return new TaskRuleError(`Task ${JSON.stringify(id.slice(0, 60))} does not exist (${listed}). Call TaskList to see the tasks.`);
}

function summarizeIds(ids: readonly string[], total: number): string {
  return ids.length <= 20 && total <= ids.length ? ids.join(", ") : `${ids.slice(0, 20).join(", ")}, … (${total} in all)`;
}

/**
 * Checks the edges a change would add to `taskId` and returns the ones not already present.
 * Refuses a self-edge, an edge to an unknown id, and an edge that would close a cycle, naming the ids.
 */
export function newEdges(graph: BlockerGraph, taskId: string, change: Pick<TaskChange, "addBlocks" | "addBlockedBy">): Edge[] {
  if (!graph.has(taskId)) throw unknownTaskError(taskId, graph.keys());
  const wanted: Edge[] = [
    ...(change.addBlockedBy ?? []).map((blocker) => ({ blocker, blocked: taskId })),
    ...(change.addBlocks ?? []).map((blocked) => ({ blocker: taskId, blocked })),
  ];
  const added = new Map<string, string[]>();
  const blockersOf = (id: string) => [...(graph.get(id) ?? []), ...(added.get(id) ?? [])];
  const result: Edge[] = [];
  for (const edge of wanted) {
    const other = edge.blocker === taskId ? edge.blocked : edge.blocker;
    if (other === taskId) throw new TaskRuleError(`Task ${taskId} cannot block or wait on itself; name a different task id.`);
    if (!graph.has(other)) throw unknownTaskError(other, graph.keys());
    if (blockersOf(edge.blocked).includes(edge.blocker)) continue;
    const path = waitPath(blockersOf, edge.blocker, edge.blocked);
    if (path) {
      throw new TaskRuleError(
        `Refused: making task ${edge.blocked} wait on task ${edge.blocker} would close a cycle ` +
          `(${[edge.blocked, ...path].join(" waits on ")}). Dependencies must not loop; drop one of these edges.`,
      );
    }
    added.set(edge.blocked, [...(added.get(edge.blocked) ?? []), edge.blocker]);
    result.push(edge);
  }
  return result;
}

/** The chain from `from` through blockers to `to`, if `from` already (transitively) waits on `to`. */
function waitPath(blockersOf: (id: string) => readonly string[], from: string, to: string): string[] | undefined {
  const cameFrom = new Map<string, string | null>([[from, null]]);
  const queue = [from];
  while (queue.length > 0) {
    const id = queue.shift() as string;
    if (id === to) {
      const path: string[] = [];
      for (let at: string | null | undefined = id; at; at = cameFrom.get(at)) path.unshift(at);
      return path;
    }
    for (const blocker of blockersOf(id)) {
      if (cameFrom.has(blocker)) continue;
      cameFrom.set(blocker, id);
      queue.push(blocker);
    }
  }
  return undefined;
}

/** Merges a metadata patch: a null value deletes its key. */
export function mergeMetadata(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/**
 * Applies a change to `tasks[id]` and to both ends of each new edge. `tasks` must hold the task and
 * every task named by the edges; `graph` is the whole board's graph for the cycle check.
 * Returns the ids of the tasks that changed, so a store writes back exactly those.
 */
export function applyChange(tasks: Map<string, Task>, graph: BlockerGraph, id: string, change: TaskChange): string[] {
  const task = tasks.get(id);
  if (!task) throw unknownTaskError(id, graph.keys());
  const edges = newEdges(graph, id, change);
  if (change.subject !== undefined) task.subject = change.subject;
  if (change.description !== undefined) task.description = change.description;
  if (change.state !== undefined) task.state = change.state;
  if (change.owner !== undefined) task.owner = change.owner;
  if (change.metadata !== undefined) task.metadata = mergeMetadata(task.metadata, change.metadata);
  const changed = new Set([id]);
  for (const { blocker, blocked } of edges) {
    const from = tasks.get(blocker);
    const to = tasks.get(blocked);
    if (!from || !to) throw new Error(`applyChange needs tasks ${blocker} and ${blocked} loaded.`);
    from.blocks = sortIds([...from.blocks, blocked]);
    to.blockedBy = sortIds([...to.blockedBy, blocker]);
    changed.add(blocker).add(blocked);
  }
  return [...changed];
}

/** Removes `tasks[id]` and every edge naming it; `tasks` must hold its neighbours. Returns the neighbours changed. */
export function removeTask(tasks: Map<string, Task>, id: string): string[] {
  const task = tasks.get(id);
  if (!task) throw unknownTaskError(id, tasks.keys());
  tasks.delete(id);
  const neighbours = new Set([...task.blocks, ...task.blockedBy]);
  for (const neighbourId of neighbours) {
    const neighbour = tasks.get(neighbourId);
    if (!neighbour) continue;
    neighbour.blocks = neighbour.blocks.filter((other) => other !== id);
    neighbour.blockedBy = neighbour.blockedBy.filter((other) => other !== id);
  }
  return [...neighbours].filter((neighbourId) => tasks.has(neighbourId));
}

/** The blockers of `task` that are not completed yet (a missing blocker counts as resolved). */
export function openBlockers(task: Task, stateOf: (id: string) => TaskState | undefined): string[] {
  return task.blockedBy.filter((id) => {
    const state = stateOf(id);
    return state !== undefined && state !== "completed";
  });
}

/** The task `owner` should claim next: the lowest-numbered pending, unblocked task that is unowned or already theirs. */
export function nextClaimable(tasks: ReadonlyMap<string, Task>, owner: string): Task | undefined {
  const stateOf = (id: string) => tasks.get(id)?.state;
  let best: Task | undefined;
  for (const task of tasks.values()) {
    if (task.state !== "pending" || (task.owner !== null && task.owner !== owner)) continue;
    if (openBlockers(task, stateOf).length > 0) continue;
    if (!best || compareTaskIds(task.id, best.id) < 0) best = task;
  }
  return best;
}

/** Checks that `id` may be given to a new task: reserved (below the next id) and not on the board. */
export function checkReservedId(id: string, nextId: number, exists: boolean): void {
  if (!isTaskId(id) || Number(id) >= nextId || exists) {
    throw new TaskRuleError(`Task id "${id}" was not reserved for a new task (the next free id is ${nextId}); create the task without an id.`);
  }
}

/** The ids `reserveIds(count)` hands out when the next id is `nextId`. */
export function idRange(nextId: number, count: number): string[] {
  if (!Number.isInteger(count) || count < 1 || count > 1000) throw new TaskRuleError(`reserveIds takes a count from 1 to 1000; got ${String(count)}.`);
  return Array.from({ length: count }, (_, i) => String(nextId + i));
}

/** The id the next created task gets: never below `floor`, and above every id in use. */
export function nextFreeId(tasks: Iterable<Task>, floor: number): number {
  let next = floor;
  for (const task of tasks) next = Math.max(next, Number(task.id) + 1);
  return next;
}

export function sortIds(ids: Iterable<string>): string[] {
  return [...new Set(ids)].sort(compareTaskIds);
}

/** The metadata key that keeps an imported task's outside id (an issue tracker's "PROJ-1", say). */
export const EXTERNAL_ID_KEY = "externalId";

const MAX_EXTERNAL_ID = 200;

/**
 * Turns imported tasks into a consistent board: unique ids, known states, edges written both ways,
 * no self-edges, no unknown ids, no cycles. A task whose id is not a board id ("1", "2", …) keeps that
 * outside id as `metadata.externalId` and gets the next board id (from `floor` up, above every board
 * id in the import, in import order); edges may name tasks by either id. Throws TaskRuleError naming
 * what is wrong.
 */
export function normalizeImport(imported: readonly TaskImport[], now: string, floor = 1): Task[] {
  const boardIds = new Map<string, string>();
  let next = imported.reduce((high, item) => (isTaskId(item.id) ? Math.max(high, Number(item.id) + 1) : high), floor);
  for (const item of imported) {
    if (typeof item.id !== "string" || item.id.trim() === "" || item.id.length > MAX_EXTERNAL_ID) {
      const shown = typeof item.id === "string" ? `"${item.id.slice(0, 40)}"${item.id.length > 40 ? ` (${item.id.length} characters)` : ""}` : String(item.id);
      throw new TaskRuleError(`Imported task id ${shown} is not accepted: give a board id ("1", "2", …) or an outside id of 1-${MAX_EXTERNAL_ID} characters.`);
    }
    if (boardIds.has(item.id)) throw new TaskRuleError(`Imported task id "${item.id}" appears twice.`);
    boardIds.set(item.id, isTaskId(item.id) ? item.id : String(next++));
  }
  const toBoardId = (id: string) => boardIds.get(id) ?? id;
  const tasks = new Map<string, Task>();
  for (const item of imported) {
    const id = toBoardId(item.id);
    const state = item.state ?? "pending";
    if (!TASK_STATES.includes(state)) throw new TaskRuleError(`Imported task ${item.id} has unknown state "${String(state)}".`);
    const metadata = structuredClone(item.metadata ?? {});
    if (id !== item.id) {
      const kept = metadata[EXTERNAL_ID_KEY];
      if (kept !== undefined && kept !== item.id) {
        throw new TaskRuleError(`Imported task "${item.id}" also has metadata.${EXTERNAL_ID_KEY} ${JSON.stringify(kept)}; the outside id is kept there, so leave that key out.`);
      }
      metadata[EXTERNAL_ID_KEY] = item.id;
    }
    tasks.set(id, {
      id,
      subject: item.subject,
      description: item.description ?? "",
      state,
      owner: item.owner ?? null,
      blocks: [],
      blockedBy: [],
      metadata,
      createdAt: item.createdAt ?? now,
    });
  }
  // All edges first, then one check for loops over the whole graph: checking each edge as it is
  // added would walk the graph once per edge, which a board of many thousand tasks cannot afford.
  const blockers = new Map<string, Set<string>>([...tasks.keys()].map((id) => [id, new Set<string>()]));
  const link = (blocker: string, blocked: string) => {
    if (blocker === blocked) throw new TaskRuleError(`Task ${blocked} cannot block or wait on itself; name a different task id.`);
    for (const id of [blocker, blocked]) if (!tasks.has(id)) throw unknownTaskError(id, tasks.keys());
    blockers.get(blocked)?.add(blocker);
  };
  for (const item of imported) {
    const id = toBoardId(item.id);
    for (const blocker of item.blockedBy ?? []) link(toBoardId(blocker), id);
    for (const blocked of item.blocks ?? []) link(id, toBoardId(blocked));
  }
  const loop = findLoop(blockers);
  if (loop) throw new TaskRuleError(`Refused: the imported tasks would close a cycle (${loop.join(" waits on ")}). Dependencies must not loop; drop one of these edges.`);
  const blocks = new Map<string, string[]>();
  for (const [blocked, ids] of blockers) for (const blocker of ids) blocks.set(blocker, [...(blocks.get(blocker) ?? []), blocked]);
  for (const task of tasks.values()) {
    task.blockedBy = sortIds(blockers.get(task.id) ?? []);
    task.blocks = sortIds(blocks.get(task.id) ?? []);
  }
  return [...tasks.values()].sort((a, b) => compareTaskIds(a.id, b.id));
}

/** A loop in the graph (each id waits on the next, the last on the first again), or undefined: Kahn's algorithm, then a walk among what is left. */
function findLoop(blockers: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const waiting = new Map([...blockers].map(([id, ids]) => [id, ids.size]));
  const dependents = new Map<string, string[]>();
  for (const [blocked, ids] of blockers) for (const blocker of ids) dependents.set(blocker, [...(dependents.get(blocker) ?? []), blocked]);
  const ready = [...waiting].filter(([, n]) => n === 0).map(([id]) => id);
  while (ready.length > 0) {
    const id = ready.pop() as string;
    waiting.delete(id);
    for (const blocked of dependents.get(id) ?? []) {
      const left = (waiting.get(blocked) ?? 0) - 1;
      waiting.set(blocked, left);
      if (left === 0) ready.push(blocked);
    }
  }
  if (waiting.size === 0) return undefined;
  // Every task left waits on another task left: walk until one repeats.
  const path: string[] = [];
  let at = [...waiting.keys()].sort(compareTaskIds)[0] as string;
  while (!path.includes(at)) {
    path.push(at);
    at = [...(blockers.get(at) ?? [])].find((id) => waiting.has(id)) as string;
  }
  return [...path.slice(path.indexOf(at)), at];
}
