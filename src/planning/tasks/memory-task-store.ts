import { applyChange, blockerGraph, nextClaimable, nextFreeId, normalizeImport, removeTask, unknownTaskError } from "./task-graph.js";
import type { TaskStore, TaskStoreState } from "./task-store.js";
import { cloneTask, compareTaskIds, countByState, newTask, TaskRuleError, type Task, type TaskChange, type TaskDraft, type TaskImport, type TaskState } from "./task.js";

/**
 * Tasks kept in this process only: the library's default. Every operation runs synchronously inside
 * its promise, so each one is atomic; the board's saved agent state carries a full snapshot.
 */
export class MemoryTaskStore implements TaskStore {
  readonly boardId: string;
  #tasks = new Map<string, Task>();
  #nextId = 1;

  constructor(opts: { boardId?: string } = {}) {
    this.boardId = opts.boardId ?? "memory";
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

  async create(draft: TaskDraft): Promise<Task> {
    const task = newTask(String(this.#nextId++), draft);
    this.#tasks.set(task.id, task);
    return cloneTask(task);
  }

  async update(id: string, change: TaskChange): Promise<Task> {
    // Work on copies so a refused change leaves the board untouched.
    const working = new Map([...this.#tasks].map(([key, task]) => [key, cloneTask(task)]));
    const changed = applyChange(working, blockerGraph(this.#tasks.values()), id, change);
    for (const changedId of changed) this.#tasks.set(changedId, working.get(changedId) as Task);
    return cloneTask(this.#tasks.get(id) as Task);
  }

  async remove(id: string): Promise<void> {
    if (!this.#tasks.has(id)) throw unknownTaskError(id, this.#tasks.keys());
    removeTask(this.#tasks, id);
  }

  async claimNext(owner: string): Promise<Task | undefined> {
    const task = nextClaimable(this.#tasks, owner);
    if (!task) return undefined;
    task.state = "in_progress";
    task.owner = owner;
    return cloneTask(task);
  }

  async replaceAll(tasks: readonly TaskImport[]): Promise<void> {
    this.#replace(normalizeImport(tasks, new Date().toISOString()), this.#nextId);
  }

  saveState(): TaskStoreState {
    return { kind: "snapshot", nextId: this.#nextId, tasks: this.#sorted().map(cloneTask) };
  }

  loadState(state: TaskStoreState): void {
    if (state.kind !== "snapshot") {
      throw new TaskRuleError(
        `This saved board refers to ${state.store} board "${state.boardId}"; give the TaskBoard that store to load it.`,
      );
    }
    this.#replace(normalizeImport(state.tasks, new Date().toISOString()), state.nextId);
  }

  async close(): Promise<void> {}

  #replace(tasks: Task[], nextId: number): void {
    this.#tasks = new Map(tasks.map((task) => [task.id, task]));
    this.#nextId = nextFreeId(tasks, nextId);
  }

  #sorted(): Task[] {
    return [...this.#tasks.values()].sort((a, b) => compareTaskIds(a.id, b.id));
  }
}
