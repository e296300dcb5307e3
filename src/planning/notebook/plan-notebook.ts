import { randomUUID } from "node:crypto";
import { PluginHosts, type BeforeModelContext, type Plugin, type PluginHost } from "../../core/plugin.js";
import type { Message } from "../../core/messages.js";
import { ToolError, type Tool } from "../../core/tool.js";
import { defaultPlanToHint, finishedPlanHint, planGuidance, wrapHint, type RecommendedCall } from "./hints.js";
import { MemoryPlanStorage } from "./memory-plan-storage.js";
import {
  Plan,
  SETTABLE_SUBTASK_STATES,
  SubTask,
  newSubTaskId,
  timestamp,
  type PlanData,
  type PlanInput,
  type SettableSubTaskState,
  type SubTaskInput,
} from "./plan.js";
import type { PlanStorage } from "./plan-storage.js";
import { createPlanTools } from "./plan-tools.js";
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
  /** Where plans live; memory by default. A persistent storage makes saved state a reference. */
  storage?: PlanStorage;
  /** The plugin's name, under which the agent saves its state. */
  name?: string;
  /** The time source for new plans and finished subtasks (tests pin it). */
  clock?: () => Date;
  /**
   * The user approves every plan the model creates: create_plan pauses the run (stopReason
   * "awaiting-approval") until `agent.resume` approves, edits or rejects it. An edited plan is the one
   * created, and the model is told exactly what the user changed. Revisions of a running plan do not
   * pause: they are small corrections made while working (ask for them with a permission policy if wanted).
   */
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
  readonly storage: PlanStorage;
  readonly planApproval: boolean;
  readonly #planToHint: (plan: Plan | null) => string | null;
  readonly #clock: () => Date;
  readonly #hosts = new PluginHosts();
  readonly #hooks = new Map<string, PlanChangeHook>();
  readonly #tools: Tool[];
  #changes: Promise<unknown> = Promise.resolve();
  readonly #units = new SubtaskUnits();
  #current: Plan | null = null;
  #closed = false;
  /** The plan finished since the last model request: the next hint asks for the answer to the user. */
  #justFinished: Plan | null = null;

  constructor(opts: PlanNotebookOptions = {}) {
    this.name = opts.name ?? "plan_notebook";
    this.maxSubtasks = opts.maxSubtasks ?? Infinity;
    if (!(this.maxSubtasks >= 1)) throw new Error(`maxSubtasks must be at least 1, got ${String(opts.maxSubtasks)}.`);
    this.storage = opts.storage ?? new MemoryPlanStorage();
    this.#planToHint = opts.planToHint ?? defaultPlanToHint;
    this.#clock = opts.clock ?? (() => new Date());
    this.planApproval = opts.planApproval ?? false;
    this.#tools = createPlanTools(this);
    // A persistent storage knows which plan its scope is working on: a notebook opened on it goes on with that plan.
    this.#current = this.#committedPlan() ?? null;
    this.#units.reset(this.#current);
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

  beforeModel(ctx: BeforeModelContext): Message[] {
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

  /** Archived plans, in the order they were first stored: every plan this notebook's storage holds except the current one. */
  historicalPlans(): Plan[] {
    return this.storage
      .list()
      .filter((data) => data.id !== this.#current?.id)
      .map((data) => Plan.fromJSON(data));
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
          : new Plan({ createdAt: now, ...input, subtasks: input.subtasks.map((s) => new SubTask({ createdAt: now, ...s })) });
      if (plan.subtasks.length === 0) {
        throw new ToolError("A plan needs at least one subtask. Call 'create_plan' again with a non-empty subtasks list.");
      }
      if (plan.subtasks.length > this.maxSubtasks) {
        throw new ToolError(
          `A plan may have at most ${this.maxSubtasks} subtasks; this one has ${plan.subtasks.length}. ` +
            "Merge related steps and call 'create_plan' again.",
        );
      }
      if (plan.id === this.#current?.id || this.storage.get(plan.id) !== null) plan.id = randomUUID();
      for (const subtask of plan.subtasks) subtask.id = newSubTaskId();
      const previous = this.#archivedCurrent(`Replaced by the plan '${plan.name}'.`);
      await this.#commit({ current: plan, justFinished: null }, ...previous, [plan, "created"]);
      return plan;
    });
  }

  /** The detailed markdown of the subtasks at these indices. */
  viewSubtasks(indices: readonly number[]): string {
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
        plan.subtasks.splice(at, 0, new SubTask({ ...(subtask as SubTaskInput), createdAt: this.#now() }));
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
      const data = this.storage.get(planId);
      if (data === null) {
        throw new ToolError(`No archived plan has the id '${planId}'. Call 'view_historical_plans' to list them with their ids.`);
      }
      const plan = Plan.fromJSON(data);
      const previous = this.#archivedCurrent(`Set aside when the plan '${plan.name}' was recovered.`);
      // Reopened: it is being worked on again, so it is no longer finished.
      plan.state = plan.subtasks.every((s) => s.state === "todo") ? "todo" : "in_progress";
      plan.outcome = null;
      plan.finishedAt = null;
      await this.#commit({ current: plan, justFinished: null }, ...previous, [plan, "recovered"]);
      return plan;
    });
  }

  /** Closes the storage, when it has something to close (Agent.close calls this); a second call is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.storage.close?.();
  }

  saveState(): PlanNotebookState {
    if (this.storage.persistent) return { version: STATE_VERSION, planId: this.#current?.id ?? null };
    return {
      version: STATE_VERSION,
      currentPlan: this.#current?.toJSON() ?? null,
      history: this.historicalPlans().map((plan) => plan.toJSON()),
    };
  }

  loadState(state: unknown): void {
    const saved = parseSavedState(state);
    this.#justFinished = null;
    if ("planId" in saved) {
      // The storage commits with every tool call, the saved state only when the agent checkpoints: when
      // the storage recorded a current plan it is the newer truth (a run killed in between resumes right).
      const committed = this.#committedPlan();
      if (committed !== undefined) {
        this.#current = committed;
        this.#units.reset(this.#current);
        return;
      }
      const data = saved.planId === null ? null : this.storage.get(saved.planId);
      if (saved.planId !== null && data === null) {
        throw new Error(
          `The saved plan notebook refers to plan '${saved.planId}', which this storage does not hold. Load it with the storage it was saved with.`,
        );
      }
      this.#current = data && (data.state === "todo" || data.state === "in_progress") ? Plan.fromJSON(data) : null;
      this.#units.reset(this.#current);
      return;
    }
    // A copy replaces what a memory storage holds; a persistent storage keeps its other plans.
    if (!this.storage.persistent) for (const plan of this.storage.list()) this.storage.delete(plan.id);
    this.#store([...saved.history, ...(saved.currentPlan ? [saved.currentPlan] : [])], saved.currentPlan?.id ?? null);
    this.#current = saved.currentPlan ? Plan.fromJSON(saved.currentPlan) : null;
    this.#units.reset(this.#current);
  }

  /** The plan the storage last recorded as current (null for none), or undefined when it keeps no such record. */
  #committedPlan(): Plan | null | undefined {
    const id = this.storage.currentPlanId?.();
    if (id === undefined) return undefined;
    const data = id === null ? null : this.storage.get(id);
    return data && (data.state === "todo" || data.state === "in_progress") ? Plan.fromJSON(data) : null;
  }

  /**
   * Stores plans together with which one is current: atomically when the storage can; otherwise
   * plan by plan, putting back the plans already written when one fails.
   */
  #store(plans: PlanData[], currentId: string | null): void | Promise<void> {
    if (this.storage.commit) return this.storage.commit(plans, currentId);
    const written: { plan: PlanData; before: PlanData | null }[] = [];
    try {
      for (const plan of plans) {
        const before = this.storage.get(plan.id);
        this.storage.add(plan);
        written.push({ plan, before });
      }
    } catch (error) {
      for (const { plan, before } of written.reverse()) {
        try {
          if (before) this.storage.add(before);
          else this.storage.delete(plan.id);
        } catch {
          // The storage is failing; the error below is what the caller needs to hear.
        }
      }
      throw error;
    }
  }

  #now(): string {
    return timestamp(this.#clock());
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
   * then), and only once the storage took them makes `next` the notebook's state and tells listeners
   * and hooks. A failed write thus leaves notebook and storage as they were. Units of work are
   * announced here, inside the tool call that made the change, so they land in its turn.
   */
  /**
   * Runs one change after the one before it has been stored: a turn's calls run at once, and with a
   * storage that writes over the network each would otherwise decide on a plan another is changing.
   */
  #oneAtATime<T>(change: () => Promise<T>): Promise<T> {
    const next = this.#changes.then(change);
    this.#changes = next.catch(() => undefined);
    return next;
  }

  async #commit(next: { current: Plan | null; justFinished?: Plan | null }, ...changes: [Plan, PlanChange][]): Promise<void> {
    try {
      const stored = this.#store(
        changes.map(([plan]) => plan.toJSON()),
        next.current?.id ?? null,
      );
      // Only a storage that writes over the network waits here: a local one stays in step with the call.
      if (stored) await stored;
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

