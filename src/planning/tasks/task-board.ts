import { PluginHosts, type AfterModelContext, type Plugin, type PluginHost } from "../../core/plugin.js";
import type { Tool, ToolContext } from "../../core/tool.js";
import { MemoryTaskStore } from "./memory-task-store.js";
import type { CompleteAndClaim, TaskStore, TaskStoreState } from "./task-store.js";
import { taskBoardTools } from "./task-tools.js";
import { taskUnitEvents } from "./task-units.js";
import { EXTERNAL_ID_KEY, sortIds, unknownTaskError } from "./task-graph.js";
import { taskListPage, type TaskListFilter, type TaskListPage } from "./task-list-view.js";
import { TaskLeaseError, type ClaimedTask, type ClaimOptions, type FencedWrite, type TaskClaim, type TaskLease } from "./task-lease.js";
import { isTaskId, TaskRuleError, type Task, type TaskBoardChange, type TaskChange, type TaskDraft, type TaskImport, type TaskState } from "./task.js";

declare module "../../core/events.js" {
  interface AgentEventMap {
    /** A task board changed through this agent's board: which board, what happened, which tasks. */
    "tasks-updated": TaskBoardChange;
    /** A claim ran out without being renewed (its worker died or stalled): the task went back to pending. */
    "lease-expired": { boardId: string; lease: TaskLease };
  }
}

export const TASK_BOARD_STATE_VERSION = 1;

export type TaskBoardState = { version: number; board: TaskStoreState };

export type TaskBoardOptions = {
  /** Where the tasks live; an in-memory board by default. */
  store?: TaskStore;
  /** Who this board acts for: the owner set when a task is started or claimed without one. */
  agentName?: string;
};

/**
 * The task board plugin: TaskCreate, TaskGet, TaskList and TaskUpdate for the model, and the same
 * operations for code outside the model loop (seed, import, reset, read), keeping edges consistent
 * either way. Each change emits `tasks-updated` to every agent the board is attached to, and a task
 * that starts or finishes through this board is announced to them as a unit of work
 * (`unit-start` / `unit-end`), the boundaries context folding folds along.
 */
export class TaskBoard implements Plugin {
  readonly name = "task-board";
  readonly store: TaskStore;
  readonly agentName: string | undefined;
  readonly #hosts = new PluginHosts();
  /** Ids set aside for this turn's TaskCreate calls, by agent and call id. */
  readonly #reserved = new Map<string, Map<string, string>>();
  #createTool: Tool | undefined;
  #closing: Promise<void> | undefined;

  constructor(opts: TaskBoardOptions = {}) {
    this.store = opts.store ?? new MemoryTaskStore();
    this.agentName = opts.agentName;
  }

  tools(): Tool[] {
    return taskBoardTools(this);
  }

  attach(host: PluginHost): void {
    this.#hosts.add(host);
  }

  /**
   * The agent runs a turn's tool calls at once, so several TaskCreate calls would take ids in
   * whatever order their writes land. Before they run, the board sets aside one id per well-formed
   * TaskCreate call, in call order, and each call creates its task under its own id; the model can
   * then name the tasks of one turn by their order. (A call that does not run after all leaves its
   * id unused, as a deleted task does.)
   */
  async afterModel(ctx: AfterModelContext): Promise<void> {
    this.#reserved.delete(ctx.agentName);
    this.#createTool ??= this.tools().find((tool) => tool.name === "TaskCreate") as Tool;
    const check = this.#createTool.check?.bind(this.#createTool);
    const creates = ctx.toolCalls.filter((call) => call.name === "TaskCreate" && !check?.(call.arguments));
    if (creates.length < 2) return;
    const ids = await this.store.reserveIds(creates.length);
    this.#reserved.set(ctx.agentName, new Map(creates.map((call, i) => [call.id, ids[i] as string])));
  }

  /** The id afterModel set aside for this tool call, if any; each is handed out once. */
  takeReservedId(ctx: ToolContext): string | undefined {
    const reserved = ctx.agentName === undefined ? undefined : this.#reserved.get(ctx.agentName);
    const id = ctx.toolCallId === undefined ? undefined : reserved?.get(ctx.toolCallId);
    if (id !== undefined) reserved?.delete(ctx.toolCallId as string);
    return id;
  }

  list(): Promise<Task[]> {
    return this.store.list();
  }

  get(id: string): Promise<Task | undefined> {
    return this.store.get(id);
  }

  counts(): Promise<Record<TaskState, number>> {
    return this.store.counts();
  }

  /** TaskList's view: from the store's own (indexed, LIMITed) view when it has one, otherwise from the whole board. */
  async listView(filter: TaskListFilter): Promise<TaskListPage> {
    return this.store.listView ? this.store.listView(filter) : taskListPage(await this.store.list(), filter);
  }

  /** The tasks with these ids that exist, in id order. */
  async getMany(ids: readonly string[]): Promise<Task[]> {
    if (ids.length === 0) return [];
    if (this.store.getMany) return this.store.getMany(ids);
    const wanted = new Set(ids);
    return (await this.store.list()).filter((task) => wanted.has(task.id));
  }

  /**
   * The task a reference names: a board id ("8") or the outside id an import kept ("PROJ-1"), as a
   * model may use either. Refuses (TaskRuleError) a reference that names no task, or an outside id
   * that several tasks carry, saying what to use instead.
   */
  async find(reference: string): Promise<Task> {
    if (isTaskId(reference)) {
      const task = await this.store.get(reference);
      if (task) return task;
      const page = await this.listView({ limit: 20 });
      const { pending, in_progress, completed } = page.counts;
      throw unknownTaskError(reference, page.tasks.map((t) => t.id), pending + in_progress + completed);
    }
    const tasks = this.store.withExternalId
      ? await this.store.withExternalId(reference)
      : (await this.store.list()).filter((task) => task.metadata[EXTERNAL_ID_KEY] === reference);
    const [task] = tasks;
    if (task && tasks.length === 1) return task;
    const quoted = JSON.stringify(reference.slice(0, 60));
    if (task) throw new TaskRuleError(`${quoted} is the outside id of tasks ${tasks.map((t) => `#${t.id}`).join(", ")}; name the one you mean by its board id.`);
    throw new TaskRuleError(
      `Task ${quoted} does not exist: it is not a board id ("1", "2", …) and no task keeps it as its outside id. Call TaskList to see the tasks and their ids.`,
    );
  }

  /** The board id a reference names: a board id as it is (the store checks it when it is used), an outside id looked up. */
  async resolveId(reference: string): Promise<string> {
    return isTaskId(reference) ? reference : (await this.find(reference)).id;
  }

  /** Adds a pending task; `opts.id` only with an id the store reserved (see TaskStore.create). */
  async create(draft: TaskDraft, opts: { id?: string } = {}): Promise<Task> {
    const task = await this.store.create(draft, opts);
    this.#announce("created", [task.id]);
    return task;
  }

  /** Changes one task; with `opts.lease`, only while that lease is still held (see TaskStore.update). */
  async update(id: string, change: TaskChange, opts: FencedWrite = {}): Promise<Task> {
    // Only a change of state can start or finish a unit; other changes skip the extra read, and so
    // does a fenced write: that it was accepted means the task was in progress under its lease.
    const before = change.state === undefined || opts.lease ? undefined : await this.store.get(id);
    const task = await this.store.update(id, change, opts);
    this.#announce("updated", [id, ...(change.addBlocks ?? []), ...(change.addBlockedBy ?? [])]);
    if (change.state !== undefined) this.#announceUnits(opts.lease ? { ...task, state: "in_progress" } : before, task);
    return task;
  }

  /** Deletes a task and every edge naming it. */
  async remove(id: string): Promise<void> {
    const before = await this.store.get(id);
    await this.store.remove(id);
    this.#announce("deleted", [id]);
    this.#announceUnits(before, undefined);
  }

  /**
   * Atomically takes the lowest-numbered free task for `owner` (this board's agent by default) under
   * a lease, after returning tasks whose leases expired to pending. Keep the lease with renewLease
   * (runWorkerPool does) and pass it to update, so a write after the lease was lost is refused.
   */
  async claimNext(owner: string | undefined = this.agentName, opts: ClaimOptions = {}): Promise<ClaimedTask | undefined> {
    return (await this.claim(owner, opts)).task;
  }

  /** claimNext, also telling which expired leases this step returned to pending. */
  async claim(owner: string | undefined = this.agentName, opts: ClaimOptions = {}): Promise<TaskClaim> {
    return this.#announceClaim(await this.store.claimNext(this.#owner(owner), opts));
  }

  /**
   * A worker's step from one task to the next: completes the task `lease` holds (merging `metadata`,
   * fenced by the lease) and claims the next free one, in one round trip when the store can (see
   * TaskStore.completeAndClaim). A completion refused because the lease was lost comes back as the
   * TaskLeaseError in `completed`; the claim is made either way.
   */
  async completeAndClaim(lease: TaskLease, metadata?: Record<string, unknown>, owner: string | undefined = this.agentName, opts: ClaimOptions = {}): Promise<CompleteAndClaim> {
    const claimer = this.#owner(owner);
    if (!this.store.completeAndClaim) {
      const completed = await this.update(lease.taskId, { state: "completed", ...(metadata ? { metadata } : {}) }, { lease }).catch((error: unknown) => {
        if (error instanceof TaskLeaseError) return error;
        throw error;
      });
      return { completed, claim: await this.claim(claimer, opts) };
    }
    const step = await this.store.completeAndClaim(lease, metadata, claimer, opts);
    if (!(step.completed instanceof TaskLeaseError)) {
      this.#announce("updated", [step.completed.id]);
      this.#announceUnits({ ...step.completed, state: "in_progress" }, step.completed);
    }
    return { completed: step.completed, claim: this.#announceClaim(step.claim) };
  }

  #owner(owner: string | undefined): string {
    if (!owner) throw new TaskRuleError("claimNext needs an owner: pass one, or give the TaskBoard an agentName.");
    return owner;
  }

  #announceClaim(claim: TaskClaim): TaskClaim {
    if (claim.expired.length > 0) {
      this.#announce("released", claim.expired.map((lease) => lease.taskId));
      for (const lease of claim.expired) this.#hosts.emit({ type: "lease-expired", boardId: this.store.boardId, lease });
    }
    if (claim.task) {
      this.#announce("claimed", [claim.task.id]);
      this.#announceUnits(undefined, claim.task);
    }
    return claim;
  }

  /** Extends a lease this board handed out; a TaskLeaseError once it is no longer held. */
  renewLease(lease: TaskLease, leaseMs?: number): Promise<TaskLease> {
    return this.store.renewLease(lease, leaseMs);
  }

  /** How many tasks are held by a live lease (work in progress that may still free others). */
  activeLeases(): Promise<number> {
    return this.store.activeLeases();
  }

  /**
   * Replaces the board with `tasks` (seeding, or importing from an issue tracker); edges given on
   * either side are written on both. A task with an outside id ("PROJ-1") gets a board id and keeps
   * the outside one as `metadata.externalId`; edges may name either. Returns the board as imported.
   */
  async import(tasks: readonly TaskImport[]): Promise<Task[]> {
    const imported = await this.store.replaceAll(tasks);
    this.#announce("replaced", []);
    return imported;
  }

  /** Empties the board. Ids of removed tasks are still never reused. */
  async reset(): Promise<void> {
    await this.import([]);
  }

  /**
   * Closes the board's store (Agent.close calls this). The board owns its store: give boards that
   * must outlive one another stores of their own. A second call (a board given to several agents) is harmless.
   */
  close(): Promise<void> {
    this.#closing ??= this.store.close();
    return this.#closing;
  }

  saveState(): TaskBoardState {
    return { version: TASK_BOARD_STATE_VERSION, board: this.store.saveState() };
  }

  loadState(state: unknown): void {
    if (!isTaskBoardState(state)) throw new Error("TaskBoard.loadState expects what TaskBoard.saveState() returned: { version, board }.");
    if (state.version > TASK_BOARD_STATE_VERSION) {
      throw new Error(`This task board state has version ${state.version}; this Stepwise reads up to ${TASK_BOARD_STATE_VERSION}.`);
    }
    this.store.loadState(state.board);
    this.#announce("replaced", []);
  }

  #announce(action: TaskBoardChange["action"], taskIds: string[]): void {
    this.#hosts.emit({ type: "tasks-updated", boardId: this.store.boardId, action, taskIds: sortIds(taskIds) });
  }

  #announceUnits(before: Task | undefined, after: Task | undefined): void {
    for (const event of taskUnitEvents(before, after)) this.#hosts.emit(event);
  }
}

function isTaskBoardState(value: unknown): value is TaskBoardState {
  if (typeof value !== "object" || value === null) return false;
  const { version, board } = value as Record<string, unknown>;
  if (typeof version !== "number" || typeof board !== "object" || board === null) return false;
  const kind = (board as Record<string, unknown>)["kind"];
  return kind === "snapshot" ? Array.isArray((board as Record<string, unknown>)["tasks"]) : kind === "reference";
}
