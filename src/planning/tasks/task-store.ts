import type { ClaimOptions, FencedWrite, TaskClaim, TaskLease, TaskLeaseError } from "./task-lease.js";
import type { TaskListFilter, TaskListPage } from "./task-list-view.js";
import { countByState, type Task, type TaskChange, type TaskDraft, type TaskImport, type TaskState } from "./task.js";

/** What completeAndClaim did: the task as completed (or why its completion was refused), and the claim. */
export type CompleteAndClaim = { completed: Task | TaskLeaseError; claim: TaskClaim };

/**
 * What a task board's saved agent state holds: the tasks themselves for a store that lives only in
 * memory, or a reference to the board for a store that commits every change as it happens.
 */
export type TaskStoreState =
  | { kind: "snapshot"; nextId: number; tasks: Task[]; leases?: TaskLease[] }
  | { kind: "reference"; store: string; boardId: string };

/**
 * Where a task board keeps its tasks. Every method that changes the board is one atomic step, so
 * several agents (and, for shared stores, several processes) can use one board at once: a change
 * is either fully applied, both directions of its edges included, or not at all.
 * Rule violations (unknown id, self-edge, cycle) reject with a TaskRuleError. Shaped as every store
 * is (PlanStore, RunStore): only saveState and loadState are synchronous, as Agent.saveState is.
 */
export interface TaskStore {
  readonly boardId: string;
  /** Every task, in id order. */
  list(): Promise<Task[]>;
  get(id: string): Promise<Task | undefined>;
  /** How many tasks are in each state: a cheap look at a large board. */
  counts(): Promise<Record<TaskState, number>>;
  /**
   * TaskList's view (counts, how many match, at most `filter.limit` tasks), computed where the tasks
   * are, so that its cost does not grow with the board: a database answers it with indexed counts and
   * LIMIT. A store without it has the board loaded whole for each view.
   */
  listView?(filter: TaskListFilter): Promise<TaskListPage>;
  /** The tasks with these ids that exist, in id order. A store without it has the board loaded whole instead. */
  getMany?(ids: readonly string[]): Promise<Task[]>;
  /**
   * The tasks whose `metadata.externalId` is `externalId` (the outside id an import kept), in id
   * order. A store without it has the board loaded whole instead.
   */
  withExternalId?(externalId: string): Promise<Task[]>;
  /**
   * Appends a pending task with the next id; ids are never reused, even after deletes or a reset.
   * With `opts.id`, the task takes that id, which must come from reserveIds and be used once.
   */
  create(draft: TaskDraft, opts?: { id?: string }): Promise<Task>;
  /** Sets aside the next `count` ids, in order, for creates that must get them (see TaskBoard.afterModel). */
  reserveIds(count: number): Promise<string[]>;
  /**
   * Applies `change` to one task (and the other end of each new edge); returns the task after it.
   * With `opts.lease` the write is fenced: refused with a TaskLeaseError unless that lease is still the
   * task's current, unexpired one. A task that stops being in progress loses its lease.
   */
  update(id: string, change: TaskChange, opts?: FencedWrite): Promise<Task>;
  /** Deletes a task and every edge that names it. */
  remove(id: string): Promise<void>;
  /**
   * One atomic step: returns every in-progress task whose lease has expired to pending (unowned),
   * then claims the lowest-numbered pending task whose blockers are all completed and that is
   * unowned or already owned by `owner`: sets it in_progress, owned by `owner`, under a new lease of
   * `opts.leaseMs`. No task is ever held by two live leases, however many claimers race. Expiry is
   * judged by the store's clock (the database's, for a shared store).
   */
  claimNext(owner: string, opts?: ClaimOptions): Promise<TaskClaim>;
  /**
   * A worker's step from one task to the next as one atomic step (one round trip for a database):
   * completes the task `lease` holds, merging `metadata` in, fenced by the lease as `update` is,
   * then claims as `claimNext` does. A refused completion comes back as the TaskLeaseError in
   * `completed`; the claim happens either way. A store without it does the two steps one after the other.
   */
  completeAndClaim?(lease: TaskLease, metadata: Record<string, unknown> | undefined, owner: string, opts?: ClaimOptions): Promise<CompleteAndClaim>;
  /** Extends a live lease by `leaseMs` from now; a TaskLeaseError when it is no longer held. */
  renewLease(lease: TaskLease, leaseMs?: number): Promise<TaskLease>;
  /** How many tasks are held by a live (unexpired) lease. */
  activeLeases(): Promise<number>;
  /**
   * Replaces every task at once (seed, import, reset); edges are completed in both directions. Tasks
   * with outside ids get new board ids (never one used before); returns the board as imported.
   */
  replaceAll(tasks: readonly TaskImport[]): Promise<Task[]>;
  /** Synchronous, plain JSON: what the owning plugin puts in the agent's saved state. */
  saveState(): TaskStoreState;
  loadState(state: TaskStoreState): void;
  /** Releases what the store holds open; calling it again is harmless. */
  close(): Promise<void>;
}

/** One board of a store, with how many of its tasks are in each state. */
export type TaskBoardSummary = { boardId: string; counts: Record<TaskState, number> };

/** Rows of (board, state, count), a board without tasks once with a null state, as summaries in board order. */
export function boardSummaries(rows: readonly { board: string; state: TaskState | null; n: number | string }[]): TaskBoardSummary[] {
  const boards = new Map<string, TaskBoardSummary>();
  for (const row of rows) {
    const board = boards.get(row.board) ?? { boardId: row.board, counts: countByState([]) };
    boards.set(row.board, board);
    if (row.state !== null) board.counts[row.state] += Number(row.n);
  }
  return [...boards.values()];
}
