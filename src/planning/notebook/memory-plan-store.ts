import type { PlanData } from "./plan.js";
import type { PlanStore, PlanStoreState } from "./plan-store.js";

/** The default store: plans live as long as the notebook; saveState carries copies of them. */
export class MemoryPlanStore implements PlanStore {
  readonly #plans = new Map<string, PlanData>();

  async add(plan: PlanData): Promise<void> {
    // Re-adding keeps the plan's position in the map, so list() stays in first-added order.
    this.#plans.set(plan.id, structuredClone(plan));
  }

  async get(id: string): Promise<PlanData | null> {
    const plan = this.#plans.get(id);
    return plan ? structuredClone(plan) : null;
  }

  async list(): Promise<PlanData[]> {
    return this.#copies();
  }

  async delete(id: string): Promise<boolean> {
    return this.#plans.delete(id);
  }

  saveState(): PlanStoreState {
    return { kind: "snapshot", plans: this.#copies() };
  }

  loadState(state: PlanStoreState): void {
    if (state.kind !== "snapshot") {
      throw new Error(`The saved plans are kept in the ${state.store} scope "${state.scope}"; give the PlanNotebook that store to load them.`);
    }
    this.#plans.clear();
    for (const plan of state.plans) this.#plans.set(plan.id, structuredClone(plan));
  }

  #copies(): PlanData[] {
    return [...this.#plans.values()].map((plan) => structuredClone(plan));
  }
}
