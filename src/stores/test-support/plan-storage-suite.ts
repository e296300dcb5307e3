import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { Plan, SubTask } from "../../planning/notebook/plan.js";
import { PlanNotebook } from "../../planning/notebook/plan-notebook.js";
import type { PlanStorage } from "../../planning/notebook/plan-storage.js";

/** How a suite opens storages on one fresh place (a file, a schema), as several processes would. */
export type PlanStorageFixture = {
  open(scope?: string): Promise<PlanStorage>;
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

/** The behaviour every persistent PlanStorage must have, run against each implementation. */
export function describePlanStorage(name: string, fixture: () => Promise<PlanStorageFixture>): void {
  describe(`PlanStorage behaviour: ${name}`, () => {
    let place: PlanStorageFixture;
    const opened: PlanStorage[] = [];
    const open = async (scope?: string) => {
      const storage = await place.open(scope);
      opened.push(storage);
      return storage;
    };
    beforeEach(async () => {
      place = await fixture();
    });
    afterEach(async () => {
      for (const storage of opened.splice(0)) storage.close?.();
      await place.cleanup();
    });

    it("adds, replaces in place, gets, lists in first-added order and deletes", async () => {
      const storage = await open();
      const [a, b] = [plan("A"), plan("B")];
      storage.add(a.toJSON());
      storage.add(b.toJSON());
      storage.add({ ...a.toJSON(), state: "in_progress" });
      expect(storage.get(a.id)).toEqual({ ...a.toJSON(), state: "in_progress" });
      expect(storage.get("missing")).toBeNull();
      expect(storage.list().map((p) => p.name)).toEqual(["A", "B"]);
      expect(storage.delete(a.id)).toBe(true);
      expect(storage.delete(a.id)).toBe(false);
      expect(storage.list().map((p) => p.name)).toEqual(["B"]);
    });

    it("keeps scopes apart", async () => {
      const alice = await open("alice");
      await alice.commit?.([plan("Alice's").toJSON()], null);
      expect((await open("bob")).list()).toEqual([]);
      expect((await open("alice")).list().map((p) => p.name)).toEqual(["Alice's"]);
    });

    it("lets a second notebook opened later continue the plan, with every change committed as it happened", async () => {
      const first = new PlanNotebook({ storage: await open() });
      await first.createPlan(plan("Persisted"));
      const saved = first.saveState();
      expect(saved).toEqual({ version: 1, planId: first.currentPlan!.id });
      // Changed after saving: the reference still finds the latest committed plan.
      await first.finishSubtask(0, "first outcome");

      const second = new PlanNotebook({ storage: await open() });
      second.loadState(JSON.parse(JSON.stringify(saved)));
      expect(second.currentPlan?.toJSON()).toEqual(first.currentPlan?.toJSON());
      expect(second.currentPlan?.subtasks.map((s) => s.state)).toEqual(["done", "in_progress"]);
      await second.finishPlan("abandoned", "moved on");
      expect(new PlanNotebook({ storage: await open() }).historicalPlans().map((p) => [p.name, p.state])).toEqual([["Persisted", "abandoned"]]);
    });

    it("applies a turn's calls one after another, each seeing the plan the one before stored", async () => {
      const notebook = new PlanNotebook({ storage: await open("same-turn") });
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
      const reopened = new PlanNotebook({ storage: await open("same-turn") });
      expect(reopened.historicalPlans().map((p) => [p.name, p.state])).toEqual([["Report", "done"]]);
    });

    it("opens on the plan its scope is working on, without a saved state", async () => {
      const first = new PlanNotebook({ storage: await open("working") });
      await first.createPlan(plan("Current"));
      const reopened = new PlanNotebook({ storage: await open("working") });
      expect(reopened.currentPlan?.name).toBe("Current");
    });
  });
}
