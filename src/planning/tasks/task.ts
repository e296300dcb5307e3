import { ToolError } from "../../core/tool.js";

export type TaskState = "pending" | "in_progress" | "completed";

export const TASK_STATES: readonly TaskState[] = ["pending", "in_progress", "completed"];

/** One unit of work on a task board. Ids are numeric strings ("1", "2", …) in creation order. */
export type Task = {
  id: string;
  subject: string;
  description: string;
  state: TaskState;
  owner: string | null;
  /** Tasks that cannot start until this one is completed. */
  blocks: string[];
  /** Tasks that must be completed before this one starts. */
  blockedBy: string[];
  metadata: Record<string, unknown>;
  createdAt: string;
};

/** What a caller gives to create a task; the store assigns the id and the time. */
export type TaskDraft = {
  subject: string;
  description: string;
  metadata?: Record<string, unknown>;
};

/** A new pending task from a draft, as every store creates it. */
export function newTask(id: string, draft: TaskDraft): Task {
  return {
    id,
    subject: draft.subject,
    description: draft.description,
    state: "pending",
    owner: null,
    blocks: [],
    blockedBy: [],
    metadata: structuredClone(draft.metadata ?? {}),
    createdAt: new Date().toISOString(),
  };
}

/**
 * A change to one task, applied atomically. `metadata` is merged key by key, and a null value
 * deletes its key. Edges are only ever added, and always written in both directions.
 */
export type TaskChange = {
  subject?: string;
  description?: string;
  state?: TaskState;
  /** null clears the owner. */
  owner?: string | null;
  addBlocks?: string[];
  addBlockedBy?: string[];
  metadata?: Record<string, unknown>;
};

/** A task as code outside the model loop imports it; edges may be given on either side or both, by either id. */
export type TaskImport = {
  /** A board id ("1", "2", …), or an outside id ("PROJ-1"): that gets a board id and is kept as metadata.externalId. */
  id: string;
  subject: string;
  description?: string;
  state?: TaskState;
  owner?: string | null;
  blocks?: string[];
  blockedBy?: string[];
  metadata?: Record<string, unknown>;
  createdAt?: string;
};

/** What happened to a board, as announced by `tasks-updated` events and PostgreSQL notifications. */
export type TaskBoardChange = {
  boardId: string;
  /** "released": tasks whose leases expired went back to pending. */
  action: "created" | "updated" | "deleted" | "claimed" | "released" | "replaced";
  /** The tasks whose rows changed (empty for "replaced", which rewrites the whole board). */
  taskIds: string[];
};

/**
 * A rule of the board was broken (unknown id, self-edge, cycle, bad import). It is a ToolError so
 * the tools show its message to the model verbatim; code calling the board API catches it as usual.
 */
export class TaskRuleError extends ToolError {
  override name = "TaskRuleError";
}

/** Ids are positive whole numbers written in decimal, so they sort and never collide. */
export function isTaskId(id: string): boolean {
  return /^[1-9][0-9]{0,14}$/.test(id);
}

/** Numeric order of ids: "2" before "10". */
export function compareTaskIds(a: string, b: string): number {
  return Number(a) - Number(b);
}

export function countByState(states: Iterable<TaskState>): Record<TaskState, number> {
  const counts: Record<TaskState, number> = { pending: 0, in_progress: 0, completed: 0 };
  for (const state of states) counts[state]++;
  return counts;
}

export function cloneTask(task: Task): Task {
  return structuredClone(task);
}
