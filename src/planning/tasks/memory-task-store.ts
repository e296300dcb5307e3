import { applyChange, blockerGraph, checkReservedId, idRange, nextFreeId, normalizeImport, removeTask, unknownTaskError } from "./task-graph.js";
import {
  checkFence,
  claimStep,
  leaseDuration,
  liveLeases,
  renewStep,
  settleLease,
  type ClaimOptions,
  type FencedWrite,
  type LeaseState,
  type TaskClaim,
  type TaskLease,
} from "./task-lease.js";
import { taskListPage, type TaskListFilter, type TaskListPage } from "./task-list-view.js";
import type { TaskStore, TaskStoreState } from "./task-store.js";
import { cloneTask, compareTaskIds, countByState, newTask, TaskRuleError, type Task, type TaskChange, type TaskDraft, type TaskImport, type TaskState } from "./task.js";

/**
 * Tasks kept in this process only: the library's default. Every operation runs synchronously inside
 * its promise, so each one is atomic; the board's saved agent state carries a full snapshot.
 */
export class MemoryTaskStore implements TaskStore {
  readonly boardId: string;
  readonly #now: () => number;
  #tasks = new Map<string, Task>();
  #leases = new Map<string, LeaseState>();
  #nextId = 1;
  #nextToken = 1;

  /** `now` is the clock leases are judged by (milliseconds, Date.now by default). */
  constructor(opts: { boardId?: string; now?: () => number } = {}) {
    this.boardId = opts.boardId ?? "memory";
    this.#now = opts.now ?? Date.now;
  }

  async list(): Promise<Task[]> {
    return this.#sorted().map(cloneTask);
  }

  async get(id: string): Promise<Task | undefined> {
    const task = this.#tasks.get(id);
    return task && cloneTask(task);
  }

  async counts(): Promise<Record<TaskState, number>> {
    return countByState([...this.#tasks.values()].map((task) => task.state));
  }

  /** The view over the tasks as they are, copying only the ones shown. */
  async listView(filter: TaskListFilter): Promise<TaskListPage> {
    const page = taskListPage([...this.#tasks.values()], filter);
    return { ...page, tasks: page.tasks.map(cloneTask) };
  }

  async create(draft: TaskDraft, opts: { id?: string } = {}): Promise<Task> {
    if (opts.id !== undefined) checkReservedId(opts.id, this.#nextId, this.#tasks.has(opts.id));
    const task = newTask(opts.id ?? String(this.#nextId++), draft);
    this.#tasks.set(task.id, task);
    return cloneTask(task);
  }

  async reserveIds(count: number): Promise<string[]> {
    const ids = idRange(this.#nextId, count);
    this.#nextId += ids.length;
    return ids;
  }

  async update(id: string, change: TaskChange, opts: FencedWrite = {}): Promise<Task> {
    const current = this.#tasks.get(id);
    if (current && opts.lease) checkFence(current, this.#leases.get(id), opts.lease, this.#now());
    // Work on copies of the tasks the change can touch (it and the ends of its new edges), so a
    // refused change leaves the board untouched and a change costs the same on a board of any size.
    const working = new Map<string, Task>();
    for (const key of [id, ...(change.addBlocks ?? []), ...(change.addBlockedBy ?? [])]) {
      const task = this.#tasks.get(key);
      if (task) working.set(key, cloneTask(task));
    }
    const changed = applyChange(working, blockerGraph(this.#tasks), id, change);
    for (const changedId of changed) this.#tasks.set(changedId, working.get(changedId) as Task);
    const task = this.#tasks.get(id) as Task;
    this.#leases.set(id, settleLease(task, this.#leases.get(id)));
    return cloneTask(task);
  }

  async remove(id: string): Promise<void> {
    if (!this.#tasks.has(id)) throw unknownTaskError(id, this.#tasks.keys());
    removeTask(this.#tasks, id);
  }

  async claimNext(owner: string, opts: ClaimOptions = {}): Promise<TaskClaim> {
    const { task, expired } = claimStep(this.#tasks, this.#leases, owner, this.#now(), leaseDuration(opts.leaseMs), () => this.#nextToken++);
    return { task, expired };
  }

  async renewLease(lease: TaskLease, leaseMs?: number): Promise<TaskLease> {
    const renewed = renewStep(this.#tasks.get(lease.taskId), this.#leases.get(lease.taskId), lease, this.#now(), leaseDuration(leaseMs));
    this.#leases.set(lease.taskId, renewed.state);
    return renewed.lease;
  }

  async activeLeases(): Promise<number> {
    return liveLeases(this.#tasks.values(), this.#leases, this.#now());
  }

  async replaceAll(tasks: readonly TaskImport[]): Promise<Task[]> {
    this.#replace(normalizeImport(tasks, new Date().toISOString(), this.#nextId), this.#nextId, []);
    return this.#sorted().map(cloneTask);
  }

  saveState(): TaskStoreState {
    const leases = this.#sorted().flatMap((task): TaskLease[] => {
      const state = this.#leases.get(task.id);
      if (task.state !== "in_progress" || !state || state.expiresAtMs === null) return [];
      return [{ taskId: task.id, owner: task.owner ?? "", token: state.token, expiresAt: new Date(state.expiresAtMs).toISOString() }];
    });
    return { kind: "snapshot", nextId: this.#nextId, tasks: this.#sorted().map(cloneTask), ...(leases.length > 0 ? { leases } : {}) };
  }

  loadState(state: TaskStoreState): void {
    if (state.kind !== "snapshot") {
      throw new TaskRuleError(
        `This saved board refers to ${state.store} board "${state.boardId}"; give the TaskBoard that store to load it.`,
      );
    }
    this.#replace(normalizeImport(state.tasks, new Date().toISOString()), state.nextId, state.leases ?? []);
  }

  async close(): Promise<void> {}

  /** Leases saved with a snapshot keep running, so a task held when the state was saved comes back when they expire. */
  #replace(tasks: Task[], nextId: number, leases: readonly TaskLease[]): void {
    this.#tasks = new Map(tasks.map((task) => [task.id, task]));
    this.#leases = new Map();
    for (const lease of leases) {
      if (this.#tasks.get(lease.taskId)?.state !== "in_progress") continue;
      this.#leases.set(lease.taskId, { token: lease.token, expiresAtMs: Date.parse(lease.expiresAt) });
      this.#nextToken = Math.max(this.#nextToken, lease.token + 1);
    }
    this.#nextId = nextFreeId(tasks, nextId);
  }

  #sorted(): Task[] {
    return [...this.#tasks.values()].sort((a, b) => compareTaskIds(a.id, b.id));
  }
}
