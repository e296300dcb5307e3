import { Agent } from "../core/agent.js";
import { scriptedModel } from "../models/scripted.js";
import { Plan, SubTask } from "../planning/notebook/plan.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import type { PlanStore } from "../planning/notebook/plan-store.js";
import type { TestFramework } from "./test-framework.js";

/**
 * How the suite opens stores on one fresh place (a file, a schema, a map shared by the stores), as
 * several processes would: every store opened with one scope sees the others' plans.
 */
export type PlanStoreFixture = {
  open(scope?: string): Promise<PlanStore>;
  cleanup(): Promise<void>;
};

function plan(name: string): Plan {
  return new Plan({
    name,
    description: "d",
    expectedOutcome: "o",
    subtasks: [new SubTask({ name: "one", description: "d", expectedOutcome: "o" }), new SubTask({ name: "two", description: "d", expectedOutcome: "o" })],
  });
}

/**
 * The behaviour every persistent PlanStore must have, as tests of the framework given: ours run it
 * against the SQLite and PostgreSQL stores, and a store of your own is checked with this one call.
 */
export function describePlanStore(name: string, fixture: () => Promise<PlanStoreFixture>, test: TestFramework): void {
  const { describe, it, beforeEach, afterEach, expect } = test;
  describe(`PlanStore behaviour: ${name}`, () => {
    let place: PlanStoreFixture;
    const opened: PlanStore[] = [];
    const open = async (scope?: string) => {
      const store = await place.open(scope);
      opened.push(store);
      return store;
    };
    beforeEach(async () => {
      place = await fixture();
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close?.();
      await place.cleanup();
    });

    it("adds, replaces in place, gets, lists in first-added order and deletes", async () => {
      const store = await open();
      const [a, b] = [plan("A"), plan("B")];
      await store.add(a.toJSON());
      await store.add(b.toJSON());
      await store.add({ ...a.toJSON(), state: "in_progress" });
      expect(await store.get(a.id)).toEqual({ ...a.toJSON(), state: "in_progress" });
      expect(await store.get("missing")).toBeNull();
      expect((await store.list()).map((p) => p.name)).toEqual(["A", "B"]);
      expect(await (await open()).get(b.id)).toEqual(b.toJSON());
      expect(await store.delete(a.id)).toBe(true);
      expect(await store.delete(a.id)).toBe(false);
      expect((await store.list()).map((p) => p.name)).toEqual(["B"]);
    });

    it("commits plans and the current plan together, as another store on the place reads them", async () => {
      const store = await open();
      if (!store.commit) return;
      const [a, b] = [plan("A"), plan("B")];
      expect(await store.currentPlanId?.()).toBeUndefined();
      await store.commit([a.toJSON(), b.toJSON()], b.id);
      const other = await open();
      expect((await other.list()).map((p) => p.name)).toEqual(["A", "B"]);
      expect(await other.currentPlanId?.()).toBe(b.id);
      await other.commit?.([{ ...b.toJSON(), state: "done" }], null);
      expect(await store.currentPlanId?.()).toBeNull();
      expect((await store.get(b.id))?.state).toBe("done");
    });

    it("saves a reference to where its plans are, not the plans, and takes that reference back", async () => {
      const store = await open("referenced");
      await store.add(plan("Kept").toJSON());
      const saved = JSON.parse(JSON.stringify(store.saveState()));
      expect(saved).toMatchObject({ kind: "reference" });
      (await open("referenced")).loadState(saved);
      expect(() => store.loadState({ kind: "snapshot", plans: [] })).toThrow();
      expect((await store.list()).map((p) => p.name)).toEqual(["Kept"]);
    });

    it("keeps scopes apart", async () => {
      const alice = await open("alice");
      await alice.add(plan("Alice's").toJSON());
      expect(await (await open("bob")).list()).toEqual([]);
      expect(await (await open("bob")).currentPlanId?.()).toBeUndefined();
      expect((await (await open("alice")).list()).map((p) => p.name)).toEqual(["Alice's"]);
    });

    it("lets a second notebook opened later continue the plan, with every change committed as it happened", async () => {
      const first = new PlanNotebook({ store: await open() });
      await first.createPlan(plan("Persisted"));
      const saved = first.saveState();
      expect(saved).toEqual({ version: 1, planId: first.currentPlan!.id });
      // Changed after saving: the reference still finds the latest committed plan.
      await first.finishSubtask(0, "first outcome");

      const second = new PlanNotebook({ store: await open() });
      second.loadState(JSON.parse(JSON.stringify(saved)));
      await second.ready();
      expect(second.currentPlan?.toJSON()).toEqual(first.currentPlan?.toJSON());
      expect(second.currentPlan?.subtasks.map((s) => s.state)).toEqual(["done", "in_progress"]);
      await second.finishPlan("abandoned", "moved on");
      expect((await new PlanNotebook({ store: await open() }).historicalPlans()).map((p) => [p.name, p.state])).toEqual([["Persisted", "abandoned"]]);
    });

    it("applies a turn's calls one after another, each seeing the plan the one before stored", async () => {
      const notebook = new PlanNotebook({ store: await open("same-turn") });
      const model = scriptedModel([
        { toolCalls: [{ name: "create_plan", arguments: { name: "Report", description: "d", expected_outcome: "o", subtasks: [{ name: "Write", description: "d", expected_outcome: "o" }] } }] },
        {
          toolCalls: [
            { name: "finish_subtask", arguments: { subtask_idx: 0, subtask_outcome: "written" } },
            { name: "finish_plan", arguments: { state: "done", outcome: "done" } },
          ],
        },
        "Finished.",
      ]);
      const agent = new Agent({ model, plugins: [notebook] });
      await agent.run("Write a report.");
      const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
      expect(results[2]).toContain("is finished as 'done'");
      const reopened = new PlanNotebook({ store: await open("same-turn") });
      expect((await reopened.historicalPlans()).map((p) => [p.name, p.state])).toEqual([["Report", "done"]]);
    });

    it("opens on the plan its scope is working on, without a saved state", async () => {
      const first = new PlanNotebook({ store: await open("working") });
      await first.createPlan(plan("Current"));
      const reopened = new PlanNotebook({ store: await open("working") });
      await reopened.ready();
      expect(reopened.currentPlan?.name).toBe("Current");
    });
  });
}
