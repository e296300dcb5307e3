import * as vitest from "vitest";
import type { PlanData, PlanStore, PlanStoreState } from "../src/index.js";
import type { TestFramework } from "../src/testing.js";

// What a user writing a store of their own does: builds it from the public types alone, and checks it
// with one call of the suite `stepwise/testing` exports. The built package is what users import
// (`npm test` builds first); the paths are variables so type-checking does not need a build.
const testingEntry = new URL("../dist/testing.js", import.meta.url).href;
const rootEntry = new URL("../dist/index.js", import.meta.url).href;
const testing = (await import(testingEntry)) as typeof import("../src/testing.js");
const root = (await import(rootEntry)) as typeof import("../src/index.js");

/** One place several stores open, as processes open one database: each scope's plans and current plan. */
type Place = Map<string, { plans: Map<string, PlanData>; current: string | null | undefined }>;

/** A user's own store: plans in a map shared by every store opened on the place. `bugs` are mistakes the suite must catch. */
class MapPlanStore implements PlanStore {
  constructor(
    readonly place: Place,
    readonly scope: string,
    readonly bugs: { mixScopes?: boolean; newestFirst?: boolean } = {},
  ) {}

  async add(plan: PlanData): Promise<void> {
    this.#held().plans.set(plan.id, structuredClone(plan));
  }

  async get(id: string): Promise<PlanData | null> {
    const plan = this.#held().plans.get(id);
    return plan ? structuredClone(plan) : null;
  }

  async list(): Promise<PlanData[]> {
    const plans = [...this.#held().plans.values()].map((plan) => structuredClone(plan));
    return this.bugs.newestFirst ? plans.reverse() : plans;
  }

  async delete(id: string): Promise<boolean> {
    return this.#held().plans.delete(id);
  }

  async commit(plans: PlanData[], currentId: string | null): Promise<void> {
    for (const plan of plans) await this.add(plan);
    this.#held().current = currentId;
  }

  async currentPlanId(): Promise<string | null | undefined> {
    return this.#held().current;
  }

  saveState(): PlanStoreState {
    return { kind: "reference", store: "map", scope: this.scope };
  }

  loadState(state: PlanStoreState): void {
    if (state.kind !== "reference" || state.scope !== this.scope) throw new Error(`not this store's plans: ${JSON.stringify(state)}`);
  }

  #held() {
    const scope = this.bugs.mixScopes ? "one for all" : this.scope;
    const held = this.place.get(scope) ?? { plans: new Map<string, PlanData>(), current: undefined };
    this.place.set(scope, held);
    return held;
  }
}

const placeOf = (bugs: ConstructorParameters<typeof MapPlanStore>[2] = {}) => async () => {
  const place: Place = new Map();
  return { open: async (scope?: string) => new MapPlanStore(place, scope ?? "default", bugs), cleanup: async () => place.clear() };
};

testing.describePlanStore("a map of the user's own", placeOf(), vitest);

testing.describeTaskStore("the built MemoryTaskStore", async () => {
  const store = new root.MemoryTaskStore();
  return { store, reopen: async () => new root.MemoryTaskStore(), cleanup: async () => {} };
}, vitest);

/** Runs a suite under a framework of our own making, as a runner would, and says which tests failed. */
async function failedTests(declare: (framework: TestFramework) => void): Promise<string[]> {
  const tests: { name: string; body: () => Promise<void> }[] = [];
  const before: (() => Promise<void>)[] = [];
  const after: (() => Promise<void>)[] = [];
  const names: string[] = [];
  declare({
    describe: (name, body) => {
      names.push(name);
      body();
      names.pop();
    },
    it: (name, body) => void tests.push({ name: [...names, name].join(" > "), body }),
    beforeEach: (body) => void before.push(body),
    afterEach: (body) => void after.push(body),
    expect: vitest.expect,
  });
  const failed: string[] = [];
  for (const test of tests) {
    for (const hook of before) await hook();
    await test.body().catch(() => failed.push(test.name));
    for (const hook of after) await hook();
  }
  return failed;
}

vitest.describe("the plan store suite, under any runner", () => {
  vitest.it("passes the user's store under a runner that is not vitest's own", async () => {
    vitest.expect(await failedTests((framework) => testing.describePlanStore("map", placeOf(), framework))).toEqual([]);
  });

  vitest.it("fails a store that mixes up its scopes, and one that lists plans newest first, naming what they broke", async () => {
    const mixed = await failedTests((framework) => testing.describePlanStore("mixed", placeOf({ mixScopes: true }), framework));
    vitest.expect(mixed).toContain("PlanStore behaviour: mixed > keeps scopes apart");
    const reversed = await failedTests((framework) => testing.describePlanStore("reversed", placeOf({ newestFirst: true }), framework));
    vitest.expect(reversed).toContain("PlanStore behaviour: reversed > adds, replaces in place, gets, lists in first-added order and deletes");
  });
});
