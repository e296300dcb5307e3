import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Plan, type PlanData } from "../../planning/notebook/plan.js";
import type { StoreSet } from "../store-set.js";

/** Stores on one fresh place (a file, a schema) no other test writes to. */
export type StoredPlansFixture = { stores: StoreSet; cleanup(): Promise<void> };

const RUN_ID = "1a2b3c4d-0000-4000-8000-000000000000";

function plan(id: string, name: string): PlanData {
  return { ...new Plan({ name, description: "d", expectedOutcome: "o", subtasks: [] }).toJSON(), id };
}

/** What `StoreSet.listPlans` does on every store: plans of all scopes, newest first, counted and limited by the database. */
export function describeStoredPlans(name: string, open: () => Promise<StoredPlansFixture>): void {
  describe(`StoreSet.listPlans: ${name}`, () => {
    let fixture: StoredPlansFixture;
    let stores: StoreSet;
    beforeEach(async () => {
      fixture = await open();
      stores = fixture.stores;
    });
    afterEach(async () => {
      await stores.close();
      await fixture.cleanup();
    });

    /** Stores the plans in that scope, one notebook change each, as a notebook does. */
    async function commit(scope: string, ...plans: PlanData[]): Promise<void> {
      const storage = await stores.plans(scope);
      for (const each of plans) await storage.commit?.([each], each.id);
      storage.close?.();
    }

    it("finds nothing in a store no notebook has written to", async () => {
      expect(await stores.listPlans({ limit: 10 })).toEqual({ plans: [], total: 0 });
      expect(await stores.listPlans({ limit: 10, idPrefix: "a" })).toEqual({ plans: [], total: 0 });
    });

    it("lists every scope's plans newest first, names a run's scope by its run, and counts what the limit leaves out", async () => {
      await stores.runs.createRun({ id: RUN_ID, task: "t", strategy: "notebook", model: "scripted:demo" }, {}, "test", 60_000);
      await commit(RUN_ID, plan("p1", "first"), plan("p2", "second"));
      await commit("mcp:team", plan("p3", "third"));
      await commit(RUN_ID, plan("p4", "fourth"));
      // Finishing an old plan rewrites it; it keeps its place, which is when it was made.
      await commit(RUN_ID, { ...plan("p1", "first, done"), state: "done" });

      const all = await stores.listPlans({ limit: 10 });
      expect(all.total).toBe(4);
      expect(all.plans.map(({ plan: p, origin }) => `${p.name} (${origin})`)).toEqual([
        "fourth (run 1a2b3c4d)",
        "third (mcp:team)",
        "second (run 1a2b3c4d)",
        "first, done (run 1a2b3c4d)",
      ]);
      expect(all.plans[3]?.plan.state).toBe("done");

      const page = await stores.listPlans({ limit: 2 });
      expect(page.total).toBe(4);
      expect(page.plans.map(({ plan: p }) => p.id)).toEqual(["p4", "p3"]);
    });

    it("picks plans by an id prefix, taken literally, and counts every match however small the page", async () => {
      await commit("mcp:a", plan("abc-1", "one"), plan("abd-2", "two"));
      await commit("mcp:b", plan("abc-3", "three"), plan("x%_y", "wild"));

      const ab = await stores.listPlans({ limit: 1, idPrefix: "ab" });
      expect(ab.total).toBe(3);
      expect(ab.plans.map(({ plan: p, origin }) => `${p.id} ${origin}`)).toEqual(["abc-3 mcp:b"]);
      expect((await stores.listPlans({ limit: 5, idPrefix: "abd" })).plans.map(({ plan: p }) => p.name)).toEqual(["two"]);
      expect(await stores.listPlans({ limit: 5, idPrefix: "zz" })).toEqual({ plans: [], total: 0 });
      // A LIKE pattern's wildcards match only themselves.
      expect((await stores.listPlans({ limit: 5, idPrefix: "%" })).total).toBe(0);
      expect((await stores.listPlans({ limit: 5, idPrefix: "x%_" })).plans.map(({ plan: p }) => p.id)).toEqual(["x%_y"]);
    });
  });
}
