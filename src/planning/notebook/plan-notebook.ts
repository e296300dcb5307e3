import { PluginHosts, type BeforeModelContext, type Plugin, type PluginHost } from "../../core/plugin.js";
import type { Message } from "../../core/messages.js";
import { ToolError, type Tool } from "../../core/tool.js";
import { defaultPlanToHint, finishedPlanHint, planGuidance, wrapHint, type RecommendedCall } from "./hints.js";
import { MemoryPlanStore } from "./memory-plan-store.js";
import {
  Plan,
  SETTABLE_SUBTASK_STATES,
  SubTask,
  timestamp,
  type PlanData,
  type PlanInput,
  type SettableSubTaskState,
  type SubTaskInput,
} from "./plan.js";
import type { PlanStore } from "./plan-store.js";
import { createPlanTools } from "./plan-tools.js";
import { putSubtasksInOrder } from "./subtask-order.js";
import { SubtaskUnits } from "./subtask-units.js";
import { DONE_NEEDS_FINISH_SUBTASK } from "./tool-descriptions.js";

/** What happened to the plan a hook or a `plan-updated` event receives. */
export type PlanChange = "created" | "subtask-updated" | "subtask-finished" | "revised" | "finished" | "archived" | "recovered";

/** Called after every successful change, with a copy of the plan that changed. */
export type PlanChangeHook = (plan: Plan, change: PlanChange) => void | Promise<void>;

declare module "../../core/events.js" {
  interface AgentEventMap {
    "plan-updated": { change: PlanChange; plan: Plan };
    /**
     * The hint appended to one model request, exactly as the model receives it (AgentScope prints it
     * with print_hint_msg), and the call it recommends when the default hint names one.
     */
    "hint-added": { plugin: string; step: number; text: string; next?: RecommendedCall };
  }
}

export type SubTaskRevision = Partial<Pick<SubTaskInput, "name" | "description" | "expectedOutcome">>;

export interface PlanNotebookOptions {
  /** Most subtasks a plan may have, enforced on create and on add. Unlimited by default. */
  maxSubtasks?: number;
  /** Replaces the default hint: return the inner text (it is wrapped in <system-hint>) or null for none. */
  planToHint?: (plan: Plan | null) => string | null;
  /** Where plans live; memory by default. A persistent store makes saved state a reference. */
  store?: PlanStore;
  /** The same as `store`, under the name DESIGN.md gives it; `store` wins when both are given. */
  storage?: PlanStore;
  /** The plugin's name, under which the agent saves its state. */
  name?: string;
  /** The time source for new plans and finished subtasks (tests pin it). */
  clock?: () => Date;
  /**
   * The source of new plans' and subtasks' ids (random UUIDs by default; a subtask takes the first
   * 8 characters). A durable engine that replays the run gives one that draws the same ids again.
   */
  ids?: () => string;
  /**
   * The user approves every plan the model creates: create_plan pauses the run (stopReason
   * "awaiting-user") until `agent.resume` approves, edits or rejects it. An edited plan is the one
   * created, and the model is told exactly what the user changed. Revisions of a running plan do not
   * pause: they are small corrections made while working (ask for them with a permission policy if wanted).
   * The same option, and the same name, as every workflow's.
   */
  approvePlans?: boolean;
  /** @deprecated Use `approvePlans`. Still honoured: ignored, plans would run without the user's approval. */
  planApproval?: boolean;
}

type SavedReference = { version: 1; planId: string | null };
type SavedCopy = { version: 1; currentPlan: PlanData | null; history: PlanData[] };
export type PlanNotebookState = SavedReference | SavedCopy;

const STATE_VERSION = 1;

/**
 * A plan notebook: the model plans with eight tools and, before every model call, receives a hint
 * saying where the plan stands and what it can do next. Also usable from code: every tool has a
 * method, and hooks and `plan-updated` events report each change.
 */
export class PlanNotebook implements Plugin {
  readonly name: string;
  readonly maxSubtasks: number;
  readonly store: PlanStore;
  /** Whether every plan the model creates waits for the user's approval. */
  readonly approvePlans: boolean;
  readonly #planToHint: (plan: Plan | null) => string | null;
  readonly #clock: () => Date;
  readonly #ids: () => string;
  readonly #hosts = new PluginHosts();
  readonly #hooks = new Map<string, PlanChangeHook>();
  readonly #tools: Tool[];
  #changes: Promise<unknown> = Promise.resolve();
  /** The last reading of the store (at construction, or by loadState); a change waits for it, and fails when it failed. */
  #loaded: Promise<void> = Promise.resolve();
  /** Counts loads, so that a reading finished after a newer loadState does not overwrite what that one loaded. */
  #loads = 0;
  /** A saved reference loaded but not yet read from the store: what saveState hands back meanwhile. */
  #unread: SavedReference | undefined;
  readonly #units = new SubtaskUnits();
  #current: Plan | null = null;
  #closed = false;
  /** The plan finished since the last model request: the next hint asks for the answer to the user. */
  #justFinished: Plan | null = null;

  /** @deprecated Use `approvePlans`. */
  get planApproval(): boolean {
    return this.approvePlans;
  }

  constructor(opts: PlanNotebookOptions = {}) {
    this.name = opts.name ?? "plan_notebook";
    this.maxSubtasks = opts.maxSubtasks ?? Infinity;
    if (!(this.maxSubtasks >= 1)) throw new Error(`maxSubtasks must be at least 1, got ${String(opts.maxSubtasks)}.`);
    this.store = opts.store ?? opts.storage ?? new MemoryPlanStore();
    this.#planToHint = opts.planToHint ?? defaultPlanToHint;
    this.#clock = opts.clock ?? (() => new Date());
    this.#ids = opts.ids ?? (() => crypto.randomUUID());
    this.approvePlans = opts.approvePlans ?? opts.planApproval ?? false;
    this.#tools = createPlanTools(this);
    // A persistent store knows which plan its scope is working on: a notebook opened on it goes on with that plan.
    this.#read(null);
  }

  /**
   * Resolves once the notebook has read its store (a persistent store's current plan, when it was
   * made, or the plan a loaded state refers to) and every change made so far is stored; rejects
   * when that reading failed. Tool calls and model turns wait for it by themselves; code reading
   * `currentPlan` right after construction or `loadState` awaits it first (a change hook must not:
   * the change it hears of is one of those waited for).
   */
  ready(): Promise<void> {
    return this.#changes.then(() => this.#loaded);
  }

  get currentPlan(): Plan | null {
    return this.#current;
  }

  tools(): Tool[] {
    return this.#tools;
  }

  attach(host: PluginHost): void {
    this.#hosts.add(host);
  }

  /** The hint the next model request gets, wrapped in <system-hint>, or null for none. */
  hint(): string | null {
    return this.#nextHint().text;
  }

  async beforeModel(ctx: BeforeModelContext): Promise<Message[]> {
    await this.ready();
    const { text, next } = this.#nextHint();
    this.#justFinished = null;
    if (text === null) return [];
    this.#hosts.emitTo(ctx.agentName, { type: "hint-added", plugin: this.name, step: ctx.step, text, ...(next ? { next } : {}) });
    return [{ role: "user", content: text }];
  }

  /** The next hint, and the call it recommends (only the default hint names one). */
  #nextHint(): { text: string | null; next: RecommendedCall | null } {
    if (this.#planToHint !== defaultPlanToHint) {
      const text = this.#planToHint(this.#current);
      return { text: text === null ? null : wrapHint(text), next: null };
    }
    if (this.#current === null && this.#justFinished !== null) return { text: wrapHint(finishedPlanHint(this.#justFinished)), next: null };
    const guidance = planGuidance(this.#current);
    return { text: wrapHint(guidance.text), next: guidance.next };
  }

  registerPlanChangeHook(name: string, hook: PlanChangeHook): void {
    this.#hooks.set(name, hook);
  }

  /** Returns whether a hook with this name was registered. */
  removePlanChangeHook(name: string): boolean {
    return this.#hooks.delete(name);
  }

  /** Archived plans, in the order they were first stored: every plan this notebook's store holds except the current one. */
  async historicalPlans(): Promise<Plan[]> {
    // Not ready(): a change hook may read the archive while its change is still being made.
    await this.#loaded;
    return this.#archived(await this.store.list());
  }

  #archived(plans: readonly PlanData[]): Plan[] {
    return plans.filter((data) => data.id !== this.#current?.id).map((data) => Plan.fromJSON(data));
  }

  /**
   * Makes `plan` the current plan. A plan that was current is archived as abandoned, never dropped.
   * Accepts a `Plan` built in code (copied) or a plain description. Its subtasks get new ids: a
   * created plan is new work, even when it copies an older one.
   */
  createPlan(input: Plan | PlanInput): Promise<Plan> {
    return this.#oneAtATime(async () => {
      const now = this.#now();
      const plan =
        input instanceof Plan
          ? input.clone()
          : new Plan({ id: this.#ids(), createdAt: now, ...input, subtasks: input.subtasks.map((s) => new SubTask({ createdAt: now, ...s })) });
      if (plan.subtasks.length === 0) {
        throw new ToolError("A plan needs at least one subtask. Call 'create_plan' again with a non-empty subtasks list.");
      }
      if (plan.subtasks.length > this.maxSubtasks) {
        throw new ToolError(
          `A plan may have at most ${this.maxSubtasks} subtasks; this one has ${plan.subtasks.length}. ` +
            "Merge related steps and call 'create_plan' again.",
        );
      }
      putSubtasksInOrder(plan);
      if (plan.id === this.#current?.id || (await this.store.get(plan.id)) !== null) plan.id = this.#ids();
      for (const subtask of plan.subtasks) subtask.id = this.#newSubTaskId();
      const previous = this.#archivedCurrent(`Replaced by the plan '${plan.name}'.`);
      await this.#commit({ current: plan, justFinished: null }, ...previous, [plan, "created"]);
      return plan;
    });
  }

  /** The detailed markdown of the subtasks at these indices. */
  async viewSubtasks(indices: readonly number[]): Promise<string> {
    await this.#loaded;
    const plan = this.#requirePlan();
    return indices
      .map((index) => {
        const at = this.#checkIndex(plan, index);
        return `Subtask ${at}:\n${plan.subtasks[at]!.toMarkdown(true)}`;
      })
      .join("\n\n");
  }

  updateSubtaskState(index: number, state: SettableSubTaskState): Promise<Plan> {
    return this.#oneAtATime(async () => {
      if ((state as string) === "done") throw new ToolError(DONE_NEEDS_FINISH_SUBTASK);
      if (!SETTABLE_SUBTASK_STATES.includes(state)) {
        throw new ToolError(`Unknown state '${String(state)}': use 'todo', 'in_progress' or 'abandoned'.`);
      }
      const current = this.#requirePlan();
      const at = this.#checkIndex(current, index);
      if (current.subtasks[at]!.state === state) return current;
      const plan = current.clone();
      const subtask = plan.subtasks[at]!;
      if (subtask.state === "done") {
        throw new ToolError(
          `Subtask ${at} '${subtask.name}' is already done and stays done. To redo its work, add a new subtask ` +
            "with 'revise_current_plan' (action='add').",
        );
      }
      if (state === "in_progress") this.#checkCanStart(plan, at, "start");
      const busy = plan.subtasks.findIndex((s) => s.state === "in_progress");
      if (state === "todo" && busy > at) {
        throw new ToolError(
          `Subtask ${busy} '${plan.subtasks[busy]!.name}' is in progress and comes after subtask ${at}, so subtask ${at} cannot ` +
            `be set back to 'todo': nothing open may come before the subtask in progress. Set subtask ${busy} back to 'todo' first, ` +
            `or add a new subtask after it with 'revise_current_plan' (action='add') to redo the work.`,
        );
      }
      subtask.state = state;
      subtask.finishedAt = state === "abandoned" ? this.#now() : null;
      if (state === "in_progress" && plan.state === "todo") plan.state = "in_progress";
      await this.#commit({ current: plan }, [plan, "subtask-updated"]);
      return plan;
    });
  }

  /** Marks the subtask done with its outcome and starts the next todo subtask, if any. */
  finishSubtask(index: number, outcome: string): Promise<Plan> {
    return this.#oneAtATime(async () => {
      const plan = this.#requirePlan().clone();
      const at = this.#checkIndex(plan, index);
      const subtask = plan.subtasks[at]!;
      if (subtask.state === "done") {
        throw new ToolError(`Subtask ${at} '${subtask.name}' is already done; its outcome is recorded. Go on with the next subtask.`);
      }
      if (subtask.state === "abandoned") {
        throw new ToolError(
          `Subtask ${at} '${subtask.name}' was abandoned. Set it to 'in_progress' with 'update_subtask_state' before finishing it.`,
        );
      }
      this.#checkCanStart(plan, at, "finish");
      subtask.state = "done";
      subtask.outcome = outcome;
      subtask.finishedAt = this.#now();
      // Only a todo subtask is started next: abandoned ones are skipped and done ones never reopened.
      const next = plan.subtasks.findIndex((s, i) => i > at && s.state === "todo");
      if (next >= 0) plan.subtasks[next]!.state = "in_progress";
      if (plan.state === "todo") plan.state = "in_progress";
      await this.#commit({ current: plan }, [plan, "subtask-finished"]);
      return plan;
    });
  }

  /**
   * Adds a subtask before `index` (the number of subtasks appends), revises the one at `index`
   * (keeping its state and outcome), or deletes it.
   */
  reviseCurrentPlan(index: number, action: "add" | "revise" | "delete", subtask?: SubTaskRevision): Promise<Plan> {
    return this.#oneAtATime(async () => {
      const plan = this.#requirePlan().clone();
      if (action === "add") {
        const at = this.#checkIndex(plan, index, { allowEnd: true });
        // Everything before the subtask in progress is done or abandoned; a new todo there would block it.
        const busy = plan.subtasks.findIndex((s) => s.state === "in_progress");
        if (busy >= at) {
          throw new ToolError(
            `Subtask ${busy} '${plan.subtasks[busy]!.name}' is in progress, and a new subtask cannot go before it. Add it at ` +
              `subtask_idx ${busy + 1} to ${plan.subtasks.length} (after the subtask in progress), or set subtask ${busy} back to 'todo' first.`,
          );
        }
        const missing = (["name", "description", "expectedOutcome"] as const).filter((key) => subtask?.[key] === undefined);
        if (missing.length > 0) {
          throw new ToolError(`To add a subtask, give its ${missing.map(snakeCase).join(", ")} in the 'subtask' argument.`);
        }
        if (plan.subtasks.length >= this.maxSubtasks) {
          throw new ToolError(
            `The plan already has ${plan.subtasks.length} subtasks, the most allowed. Delete or merge subtasks ` +
              "with 'revise_current_plan' before adding another.",
          );
        }
        plan.subtasks.splice(at, 0, new SubTask({ ...(subtask as SubTaskInput), id: this.#newSubTaskId(), createdAt: this.#now() }));
      } else if (action === "revise") {
        const at = this.#checkIndex(plan, index);
        const fields = Object.entries(subtask ?? {}).filter(([, value]) => value !== undefined);
        if (fields.length === 0) {
          throw new ToolError("To revise a subtask, give the fields to change (name, description, expected_outcome) in 'subtask'.");
        }
        Object.assign(plan.subtasks[at]!, Object.fromEntries(fields));
      } else {
        const at = this.#checkIndex(plan, index);
        if (plan.subtasks.length === 1) {
          throw new ToolError(
            "This is the plan's only subtask, and a plan needs at least one. To give up the plan, call 'finish_plan' with state='abandoned'.",
          );
        }
        plan.subtasks.splice(at, 1);
      }
      await this.#commit({ current: plan }, [plan, "revised"]);
      return plan;
    });
  }

  /** Finishes the current plan as done or abandoned and archives it; returns the finished plan. */
  finishPlan(state: "done" | "abandoned", outcome: string): Promise<Plan> {
    return this.#oneAtATime(async () => {
      const plan = this.#requirePlan().clone();
      if (state === "done") {
        const open = plan.subtasks.flatMap((s, i) => (s.state === "todo" || s.state === "in_progress" ? [`${i} '${s.name}'`] : []));
        if (open.length > 0) {
          throw new ToolError(
            `The plan cannot be finished as done: subtask ${open.join(", ")} ${open.length === 1 ? "is" : "are"} not finished. ` +
              "Finish them with 'finish_subtask', mark them 'abandoned' with 'update_subtask_state', or call 'finish_plan' with state='abandoned'.",
          );
        }
      }
      plan.state = state;
      plan.outcome = outcome;
      plan.finishedAt = this.#now();
      await this.#commit({ current: null, justFinished: plan }, [plan, "finished"]);
      return plan;
    });
  }

  /** Makes an archived plan current again; the plan that was current is archived. */
  recoverHistoricalPlan(planId: string): Promise<Plan> {
    return this.#oneAtATime(async () => {
      if (planId === this.#current?.id) {
        throw new ToolError(`Plan '${planId}' is already the current plan; there is nothing to recover.`);
      }
      const data = await this.store.get(planId);
      if (data === null) {
        throw new ToolError(`No archived plan has the id '${planId}'. Call 'view_historical_plans' to list them with their ids.`);
      }
      // Reopened: it is being worked on again, so it is no longer finished.
      const plan = putSubtasksInOrder(Plan.fromJSON(data));
      const previous = this.#archivedCurrent(`Set aside when the plan '${plan.name}' was recovered.`);
      await this.#commit({ current: plan, justFinished: null }, ...previous, [plan, "recovered"]);
      return plan;
    });
  }

  /** Closes the store, when it has something to close, once the changes made are stored (Agent.close calls this); a second call is harmless. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#changes;
    await this.store.close?.();
  }

  saveState(): PlanNotebookState {
    const stored = this.store.saveState();
    if (stored.kind === "reference") return this.#unread ?? { version: STATE_VERSION, planId: this.#current?.id ?? null };
    return { version: STATE_VERSION, currentPlan: this.#current?.toJSON() ?? null, history: this.#archived(stored.plans).map((plan) => plan.toJSON()) };
  }

  /**
   * Loads what saveState returned. Copies of plans are the notebook's at once; a reference to a plan
   * in a persistent store is read from it before the next change or model turn (see `ready`).
   */
  loadState(state: unknown): void {
    const saved = parseSavedState(state);
    const stored = this.store.saveState();
    this.#justFinished = null;
    if ("planId" in saved && stored.kind === "reference") return this.#read(saved);
    let current: Plan | null;
    let loading = Promise.resolve();
    if ("planId" in saved) {
      // A store in memory is read at once.
      current = saved.planId === null || stored.kind === "reference" ? null : goOnWith(planHeld(stored.plans, saved.planId));
    } else {
      current = saved.currentPlan ? putSubtasksInOrder(Plan.fromJSON(saved.currentPlan)) : null;
      const plans = [...saved.history, ...(current ? [current.toJSON()] : [])];
      // A copy replaces what a store in memory holds; a persistent store keeps its other plans.
      if (stored.kind === "snapshot") this.store.loadState({ kind: "snapshot", plans });
      else loading = this.#store(plans, current?.id ?? null);
    }
    ++this.#loads;
    this.#unread = undefined;
    this.#settle(loading);
    this.#current = current;
    this.#units.reset(this.#current);
  }

  /**
   * Reads the plan to go on with: the one the store recorded as current when it keeps that record
   * (it commits with every tool call, the saved state only when the agent checkpoints, so it is the
   * newer truth and a run killed in between resumes right), else the one `saved` refers to.
   */
  #read(saved: SavedReference | null): void {
    const load = ++this.#loads;
    this.#unread = saved ?? undefined;
    if (saved) {
      this.#current = null;
      this.#units.reset(null);
    }
    const reading = async () => {
      const plan = await this.#planToGoOn(saved);
      if (load !== this.#loads || plan === undefined) return;
      this.#unread = undefined;
      this.#current = plan;
      this.#units.reset(this.#current);
    };
    this.#settle(reading(), load);
  }

  /** The plan to go on with (null for none), or undefined when neither the store nor a saved state names one. */
  async #planToGoOn(saved: SavedReference | null): Promise<Plan | null | undefined> {
    const committedId = await this.store.currentPlanId?.();
    if (committedId !== undefined) return goOnWith(committedId === null ? null : await this.store.get(committedId));
    if (!saved) return undefined;
    return goOnWith(saved.planId === null ? null : planHeld([await this.store.get(saved.planId)], saved.planId));
  }

  /** Makes `reading` the load changes wait for, unless a newer load has begun; its failure reaches them, not the process. */
  #settle(reading: Promise<void>, load = this.#loads): void {
    reading.catch(() => undefined);
    if (load === this.#loads) this.#loaded = reading;
  }

  /**
   * Stores plans together with which one is current: atomically when the store can; otherwise
   * plan by plan, putting back the plans already written when one fails.
   */
  async #store(plans: PlanData[], currentId: string | null): Promise<void> {
    if (this.store.commit) return this.store.commit(plans, currentId);
    const written: { plan: PlanData; before: PlanData | null }[] = [];
    try {
      for (const plan of plans) {
        const before = await this.store.get(plan.id);
        await this.store.add(plan);
        written.push({ plan, before });
      }
    } catch (error) {
      for (const { plan, before } of written.reverse()) {
        try {
          if (before) await this.store.add(before);
          else await this.store.delete(plan.id);
        } catch {
          // The store is failing; the error below is what the caller needs to hear.
        }
      }
      throw error;
    }
  }

  #now(): string {
    return timestamp(this.#clock());
  }

  /** Short, as newSubTaskId's are: it reaches the model in folded-work notes. */
  #newSubTaskId(): string {
    return this.#ids().slice(0, 8);
  }

  #requirePlan(): Plan {
    if (this.#current) return this.#current;
    throw new ToolError(
      "There is no current plan. Create one with 'create_plan', or make an archived one current with 'recover_historical_plan'.",
    );
  }

  #checkIndex(plan: Plan, index: number, opts: { allowEnd?: boolean } = {}): number {
    const count = plan.subtasks.length;
    const last = opts.allowEnd ? count : count - 1;
    if (Number.isInteger(index) && index >= 0 && index <= last) return index;
    const range = opts.allowEnd
      ? `use 0 to ${count} (${count} appends after the last subtask)`
      : `use 0 to ${last}`;
    throw new ToolError(`subtask_idx ${index} is out of range: the plan has ${count} subtasks, so ${range}.`);
  }

  /** A subtask may be started or finished only when it is next: nothing earlier open, nothing else in progress. */
  #checkCanStart(plan: Plan, at: number, verb: "start" | "finish"): void {
    const busy = plan.subtasks.findIndex((s, i) => i !== at && s.state === "in_progress");
    if (busy >= 0) {
      throw new ToolError(
        `Subtask ${busy} '${plan.subtasks[busy]!.name}' is in progress. Finish it with 'finish_subtask' or set it ` +
          `back to 'todo' with 'update_subtask_state' before you ${verb} subtask ${at}.`,
      );
    }
    const open = plan.subtasks.findIndex((s, i) => i < at && s.state === "todo");
    if (open >= 0) {
      throw new ToolError(
        `Subtask ${open} '${plan.subtasks[open]!.name}' comes before subtask ${at} and is not done. Do it first, ` +
          "or mark it 'abandoned' with 'update_subtask_state'.",
      );
    }
  }

  /** A copy of the current plan archived (as abandoned when unfinished), as a change to commit; none without a plan. */
  #archivedCurrent(reason: string): [Plan, PlanChange][] {
    if (this.#current === null) return [];
    const plan = this.#current.clone();
    plan.state = "abandoned";
    plan.outcome ??= reason;
    plan.finishedAt = this.#now();
    return [[plan, "archived"]];
  }

  /**
   * Makes a change real: stores the changed plans (copies: the notebook's plans are untouched until
   * then), and only once the store took them makes `next` the notebook's state and tells listeners
   * and hooks. A failed write thus leaves notebook and store as they were. Units of work are
   * announced here, inside the tool call that made the change, so they land in its turn.
   */
  /**
   * Runs one change after the one before it has been stored: a turn's calls run at once, and with a
   * store that writes over the network each would otherwise decide on a plan another is changing.
   */
  #oneAtATime<T>(change: () => Promise<T>): Promise<T> {
    const next = this.#changes.then(() => this.#loaded).then(change);
    this.#changes = next.catch(() => undefined);
    return next;
  }

  async #commit(next: { current: Plan | null; justFinished?: Plan | null }, ...changes: [Plan, PlanChange][]): Promise<void> {
    try {
      await this.#store(
        changes.map(([plan]) => plan.toJSON()),
        next.current?.id ?? null,
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolError(
        `The change was not saved, so the plan is as it was before this call: storing it failed (${reason}). ` +
          "Try the call again; if it keeps failing, tell the user the plan cannot be saved.",
        { cause: error },
      );
    }
    this.#current = next.current;
    if (next.justFinished !== undefined) this.#justFinished = next.justFinished;
    for (const [plan, change] of changes) this.#hosts.emit({ type: "plan-updated", change, plan: plan.clone() });
    const closed = changes.flatMap(([plan]) => (plan === next.current ? [] : [plan]));
    for (const event of this.#units.reconcile(this.#current, closed)) this.#hosts.emit(event);
    for (const [plan, change] of changes) {
      for (const hook of [...this.#hooks.values()]) {
        try {
          await hook(plan.clone(), change);
        } catch {
          // The change is already stored; a failing hook must not turn it into an error the model would retry.
        }
      }
    }
  }
}

/** The plan a notebook goes on with: an unfinished one, or none. */
function goOnWith(data: PlanData | null): Plan | null {
  return data && (data.state === "todo" || data.state === "in_progress") ? putSubtasksInOrder(Plan.fromJSON(data)) : null;
}

/** The plan a saved reference names, among what the store holds; an error when it holds no such plan. */
function planHeld(plans: readonly (PlanData | null)[], planId: string): PlanData {
  const plan = plans.find((data) => data?.id === planId);
  if (plan) return plan;
  throw new Error(`The saved plan notebook refers to plan '${planId}', which this store does not hold. Load it with the store it was saved with.`);
}

function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function parseSavedState(state: unknown): SavedReference | SavedCopy {
  const fail = (why: string) => new Error(`PlanNotebook.loadState: ${why}. Pass what PlanNotebook.saveState() returned.`);
  if (typeof state !== "object" || state === null) throw fail("expected an object");
  const s = state as Record<string, unknown>;
  if (typeof s["version"] !== "number") throw fail("the state has no version");
  if (s["version"] > STATE_VERSION) {
    throw fail(`the state has version ${s["version"]}, newer than this Stepwise reads (${STATE_VERSION})`);
  }
  if ("planId" in s && (s["planId"] === null || typeof s["planId"] === "string")) return s as SavedReference;
  if (Array.isArray(s["history"]) && "currentPlan" in s) return s as SavedCopy;
  throw fail("it holds neither a plan id nor plan copies");
}

