import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TaskStore } from "../../planning/tasks/task-store.js";
import { TaskRuleError } from "../../planning/tasks/task.js";

/** How a suite gets a fresh, empty board, and (for persistent stores) the same board opened again. */
export type TaskStoreFixture = {
  store: TaskStore;
  /** A second store on the same board, as another process or a restart would open it. */
  reopen(): Promise<TaskStore>;
  cleanup(): Promise<void>;
};

/** The behaviour every TaskStore must have, run against each implementation. */
export function describeTaskStore(name: string, open: () => Promise<TaskStoreFixture>): void {
  describe(`TaskStore behaviour: ${name}`, () => {
    let fixture: TaskStoreFixture;
    let store: TaskStore;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    const seed = async (count: number) => {
      for (let i = 1; i <= count; i++) await store.create({ subject: `Task ${i}`, description: `Do step ${i}` });
    };

    it("creates pending, unowned tasks with ids 1, 2, 3 in creation order", async () => {
      const first = await store.create({ subject: "Read the spec", description: "All of it", metadata: { source: "seed" } });
      await seed(2);
      expect(first).toMatchObject({ id: "1", subject: "Read the spec", description: "All of it", state: "pending", owner: null, blocks: [], blockedBy: [], metadata: { source: "seed" } });
      expect(Number.isNaN(Date.parse(first.createdAt))).toBe(false);
      expect((await store.list()).map((task) => task.id)).toEqual(["1", "2", "3"]);
      expect(await store.get("1")).toEqual(first);
      expect(await store.get("99")).toBeUndefined();
    });

    it("writes every edge in both directions", async () => {
      await seed(4);
      await store.update("2", { addBlockedBy: ["1"] });
      await store.update("2", { addBlocks: ["4", "3"] });
      const byId = new Map((await store.list()).map((task) => [task.id, task]));
      expect(byId.get("1")).toMatchObject({ blocks: ["2"], blockedBy: [] });
      expect(byId.get("2")).toMatchObject({ blocks: ["3", "4"], blockedBy: ["1"] });
      expect(byId.get("3")).toMatchObject({ blockedBy: ["2"] });
      expect(byId.get("4")).toMatchObject({ blockedBy: ["2"] });
    });

    it("refuses a self-edge, an unknown id and a cycle, naming the ids, and changes nothing", async () => {
      await seed(3);
      await store.update("2", { addBlockedBy: ["1"] });
      await store.update("3", { addBlockedBy: ["2"] });
      const before = await store.list();
      await expect(store.update("2", { addBlocks: ["2"] })).rejects.toThrow(/2 cannot block or wait on itself/);
      await expect(store.update("2", { subject: "renamed", addBlockedBy: ["7"] })).rejects.toThrow(/"7" does not exist/);
      const cycle = store.update("1", { subject: "renamed", addBlockedBy: ["3"] });
      await expect(cycle).rejects.toBeInstanceOf(TaskRuleError);
      await expect(cycle).rejects.toThrow(/1 waits on 3 waits on 2 waits on 1/);
      await expect(store.update("9", { state: "completed" })).rejects.toThrow(/"9" does not exist/);
      expect(await store.list()).toEqual(before);
    });

    it("deletes a task together with every edge that names it", async () => {
      await seed(3);
      await store.update("2", { addBlockedBy: ["1"], addBlocks: ["3"] });
      await store.remove("2");
      expect(await store.list()).toMatchObject([
        { id: "1", blocks: [], blockedBy: [] },
        { id: "3", blocks: [], blockedBy: [] },
      ]);
      await expect(store.remove("2")).rejects.toThrow(/"2" does not exist/);
    });

    it("never reuses an id, even after the highest task is deleted or the board is reset", async () => {
      await seed(3);
      await store.remove("3");
      expect((await store.create({ subject: "after delete", description: "" })).id).toBe("4");
      await store.replaceAll([]);
      expect((await store.create({ subject: "after reset", description: "" })).id).toBe("5");
    });

    it("merges metadata key by key; a null value deletes its key", async () => {
      await store.create({ subject: "a", description: "", metadata: { keep: 1, drop: true } });
      await store.update("1", { metadata: { drop: null, added: { nested: ["x"] } } });
      expect((await store.get("1"))?.metadata).toEqual({ keep: 1, added: { nested: ["x"] } });
    });

    it("moves a task through pending, in_progress and completed, and changes its owner and text", async () => {
      await seed(1);
      expect(await store.update("1", { state: "in_progress", owner: "ann" })).toMatchObject({ state: "in_progress", owner: "ann" });
      await store.update("1", { state: "completed", subject: "Done thing", description: "new" });
      expect(await store.update("1", { owner: null })).toMatchObject({ state: "completed", owner: null, subject: "Done thing", description: "new" });
      expect(await store.update("1", { state: "pending" })).toMatchObject({ state: "pending" });
    });

    it("claims the lowest-numbered free task, respecting blockers and other owners", async () => {
      await seed(4);
      await store.update("1", { addBlocks: ["2"] });
      await store.update("3", { owner: "bob" });
      expect(await store.claimNext("ann")).toMatchObject({ id: "1", state: "in_progress", owner: "ann" });
      expect(await store.claimNext("ann")).toMatchObject({ id: "4", owner: "ann" });
      expect(await store.claimNext("ann")).toBeUndefined();
      expect(await store.claimNext("bob")).toMatchObject({ id: "3", owner: "bob" });
      await store.update("1", { state: "completed" });
      expect(await store.claimNext("cy")).toMatchObject({ id: "2", owner: "cy" });
    });

    it("never hands one task to two racing claimers", async () => {
      await seed(12);
      const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => store.claimNext(`w${i}`)));
      const ids = claims.filter((task) => task !== undefined).map((task) => task.id);
      expect(ids.sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
    });

    it("imports tasks with edges given on one side, completing the other, and refuses a cyclic import", async () => {
      await seed(1);
      await store.replaceAll([
        { id: "5", subject: "fetch", metadata: { source: "jira" } },
        { id: "7", subject: "plan", blockedBy: ["5"], state: "completed", owner: "ann" },
      ]);
      expect(await store.list()).toMatchObject([
        { id: "5", description: "", state: "pending", blocks: ["7"], metadata: { source: "jira" } },
        { id: "7", state: "completed", owner: "ann", blockedBy: ["5"] },
      ]);
      const before = await store.list();
      await expect(store.replaceAll([{ id: "1", subject: "a", blockedBy: ["2"] }, { id: "2", subject: "b", blockedBy: ["1"] }])).rejects.toThrow(/cycle/);
      await expect(store.replaceAll([{ id: "x", subject: "a" }])).rejects.toThrow(/"x"/);
      expect(await store.list()).toEqual(before);
      expect((await store.create({ subject: "next", description: "" })).id).toBe("8");
    });

    it("round-trips through saved state: the tasks themselves, or a reference to the same board", async () => {
      await seed(2);
      await store.update("2", { addBlockedBy: ["1"], metadata: { k: "v" } });
      const saved = JSON.parse(JSON.stringify(store.saveState()));
      const reopened = await fixture.reopen();
      reopened.loadState(saved);
      expect(await reopened.list()).toEqual(await store.list());
      expect((await reopened.create({ subject: "third", description: "" })).id).toBe("3");
      if (reopened !== store) await reopened.close();
    });
  });
}
