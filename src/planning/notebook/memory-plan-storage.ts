import type { PlanData } from "./plan.js";
import type { PlanStorage } from "./plan-storage.js";

/** The default storage: plans live as long as the notebook; saveState carries copies of them. */
export class MemoryPlanStorage implements PlanStorage {
  readonly persistent = false;
  readonly #plans = new Map<string, PlanData>();

  add(plan: PlanData): void {
    // Re-adding keeps the plan's position in the map, so list() stays in first-added order.
    this.#plans.set(plan.id, structuredClone(plan));
  }

  get(id: string): PlanData | null {
    const plan = this.#plans.get(id);
    return plan ? structuredClone(plan) : null;
  }

  list(): PlanData[] {
    return [...this.#plans.values()].map((plan) => structuredClone(plan));
  }

  delete(id: string): boolean {
    return this.#plans.delete(id);
  }
}
