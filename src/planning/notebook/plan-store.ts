import type { PlanData } from "./plan.js";

/**
 * What a plan notebook's saved agent state needs from its store: the plans themselves for a store
 * that lives only in memory, or a reference to the scope of a store that commits every change as it
 * happens (the notebook then saves only the current plan's id).
 */
export type PlanStoreState = { kind: "snapshot"; plans: PlanData[] } | { kind: "reference"; store: string; scope: string };

/**
 * Where a notebook keeps its plans: the current one and every archived one. Shaped as every store
 * is (TaskStore, RunStore): each method that reads or writes returns a promise; only saveState and
 * loadState are synchronous, plain JSON and free of I/O, because Agent.saveState is synchronous.
 */
export interface PlanStore {
  /** Inserts the plan, or replaces the stored plan with the same id. */
  add(plan: PlanData): Promise<void>;
  get(id: string): Promise<PlanData | null>;
  /** Every stored plan, in the order each was first added. */
  list(): Promise<PlanData[]>;
  /** Resolves to whether a plan was deleted. */
  delete(id: string): Promise<boolean>;
  /**
   * For persistent stores: stores the changed plans and records which plan is now current (null for
   * none) in one atomic write. A process killed right after a tool call then leaves plans and current
   * plan agreeing, however old the agent's last checkpoint is. Without it the notebook calls `add`.
   */
  commit?(plans: PlanData[], currentId: string | null): Promise<void>;
  /** The current plan id recorded by the last `commit`: null for none, undefined when never recorded. */
  currentPlanId?(): Promise<string | null | undefined>;
  /** A snapshot of the plans (a store in memory) or a reference to where they are kept (a persistent store). */
  saveState(): PlanStoreState;
  /**
   * A store in memory takes a snapshot's plans in place of its own; a persistent store checks that a
   * reference names its own scope and refuses a snapshot (the notebook commits a snapshot's plans to it).
   */
  loadState(state: PlanStoreState): void;
  /** Releases what the store holds open (a file, a pool it opened); calling it again is harmless. */
  close?(): Promise<void>;
}

/** The name this contract had before every store was named `…Store`; outside code may still use it. */
export type PlanStorage = PlanStore;

/** A persistent store's refusal of a saved state that does not belong to it. */
export function refuseForeignState(state: PlanStoreState, store: string, scope: string): void {
  if (state.kind === "snapshot") {
    throw new Error(`This ${store} plan store keeps its plans itself; it takes no snapshot of plans (PlanNotebook.loadState commits them to it).`);
  }
  if (state.store !== store || state.scope !== scope) {
    throw new Error(`The saved plans refer to the ${state.store} scope "${state.scope}", but this store is the ${store} scope "${scope}".`);
  }
}
