import type { PlanData } from "./plan.js";

/**
 * Where a notebook keeps its plans: the current one and every archived one. The methods are
 * synchronous because the plugin contract's saveState/loadState are; plans are small.
 */
export interface PlanStorage {
  /**
   * True when plans outlive the process (SQLite). The notebook then commits every change here as it
   * happens and its saved state holds only the current plan's id, not a copy.
   */
  readonly persistent: boolean;
  /** Inserts the plan, or replaces the stored plan with the same id. */
  add(plan: PlanData): void;
  get(id: string): PlanData | null;
  /** Every stored plan, in the order each was first added. */
  list(): PlanData[];
  /** Returns whether a plan was deleted. */
  delete(id: string): boolean;
  /**
   * For persistent storages: stores the changed plans and records which plan is now current (null for
   * none) in one atomic write. A process killed right after a tool call then leaves plans and current
   * plan agreeing, however old the agent's last checkpoint is. Without it the notebook calls `add`.
   * A storage that writes over the network returns a promise; the change counts once it resolves.
   */
  commit?(plans: PlanData[], currentId: string | null): void | Promise<void>;
  /** The current plan id recorded by the last `commit`: null for none, undefined when never recorded. */
  currentPlanId?(): string | null | undefined;
  /** Releases what the storage holds open (a file it opened); calling it again is harmless. */
  close?(): void;
}
