import { TaskBoard } from "../planning/tasks/task-board.js";
import { taskListPage, type TaskListFilter } from "../planning/tasks/task-list-view.js";
import type { TaskStore } from "../planning/tasks/task-store.js";
import { TaskLeaseError, type TaskClaim } from "../planning/tasks/task-lease.js";
import { TaskRuleError } from "../planning/tasks/task.js";
import { eventually, type TestFramework } from "./test-framework.js";

/** How a suite gets a fresh, empty board, and (for persistent stores) the same board opened again. */
export type TaskStoreFixture = {
  store: TaskStore;
  /** A second store on the same board, as another process or a restart would open it. */
  reopen(): Promise<TaskStore>;
  cleanup(): Promise<void>;
};

/**
 * The behaviour every TaskStore must have, as tests of the framework given: ours run it against the
 * memory, SQLite and PostgreSQL stores, and a store of your own is checked with this one call.
 */
export function describeTaskStore(name: string, open: () => Promise<TaskStoreFixture>, test: TestFramework): void {
  const { describe, it, beforeEach, afterEach, expect } = test;
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

    const claim = async (owner: string, leaseMs?: number) => (await store.claimNext(owner, leaseMs === undefined ? {} : { leaseMs })).task;
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

    it("sets ids aside in order for creates that must get them, each used once, never reused", async () => {
      await seed(1);
      const ids = await store.reserveIds(3);
      expect(ids).toEqual(["2", "3", "4"]);
      // Created in reverse, as racing writes may land: each takes the id it was given.
      for (const id of [...ids].reverse()) await store.create({ subject: `reserved ${id}`, description: "" }, { id });
      expect((await store.list()).map((task) => [task.id, task.subject])).toEqual([
        ["1", "Task 1"],
        ["2", "reserved 2"],
        ["3", "reserved 3"],
        ["4", "reserved 4"],
      ]);
      await expect(store.create({ subject: "again", description: "" }, { id: "3" })).rejects.toThrow(/"3" was not reserved/);
      await expect(store.create({ subject: "ahead", description: "" }, { id: "9" })).rejects.toThrow(/"9" was not reserved/);
      expect((await store.create({ subject: "next", description: "" })).id).toBe("5");
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
      expect(await claim("ann")).toMatchObject({ id: "1", state: "in_progress", owner: "ann" });
      expect(await claim("ann")).toMatchObject({ id: "4", owner: "ann" });
      expect(await claim("ann")).toBeUndefined();
      expect(await claim("bob")).toMatchObject({ id: "3", owner: "bob" });
      await store.update("1", { state: "completed" });
      expect(await claim("cy")).toMatchObject({ id: "2", owner: "cy" });
    });

    it("never hands one task to two racing claimers", async () => {
      await seed(12);
      const claims = await Promise.all(Array.from({ length: 30 }, (_, i) => claim(`w${i}`)));
      const ids = claims.filter((task) => task !== undefined).map((task) => task.id);
      expect(ids.sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 12 }, (_, i) => String(i + 1)));
    });

    // Leases are judged by the store's own clock (the database's, for PostgreSQL), so these tests never
    // assume when a lease ends: a lease that must stay alive lasts a minute, and one that must run out
    // lasts 1 ms and is waited for through the store (no live lease left, or a claim that reclaims it).
    const LONG = 60_000;
    const waitUntilNoLiveLease = () => eventually("every lease to run out", async () => (await store.activeLeases()) === 0);

    it("claims under a lease naming the owner; renewing extends it; activeLeases counts it", async () => {
      await seed(2);
      const first = await claim("ann", LONG);
      expect(first?.lease).toMatchObject({ taskId: "1", owner: "ann", token: expect.any(Number) });
      const lease = first?.lease as NonNullable<typeof first>["lease"];
      expect(await store.activeLeases()).toBe(1);
      expect(await claim("bob", LONG)).toMatchObject({ id: "2", owner: "bob" });
      expect(await claim("bob", LONG)).toBeUndefined();
      const renewed = await store.renewLease(lease, LONG * 2);
      expect(renewed).toMatchObject({ taskId: "1", owner: "ann", token: lease.token });
      expect(Date.parse(renewed.expiresAt)).toBeGreaterThan(Date.parse(lease.expiresAt));
      expect(await store.activeLeases()).toBe(2);
    });

    it("returns a task whose lease expired to pending, says whose lease it was, and hands it out again", async () => {
      await seed(1);
      const lost = (await claim("ann", 1))?.lease as NonNullable<Awaited<ReturnType<typeof claim>>>["lease"];
      let reclaim: TaskClaim | undefined;
      await eventually("ann's lease to run out and bob to claim the task", async () => (reclaim = await store.claimNext("bob", { leaseMs: LONG })).task?.id === "1");
      expect(reclaim?.expired).toEqual([{ taskId: "1", owner: "ann", token: lost.token, expiresAt: lost.expiresAt }]);
      expect(reclaim?.task).toMatchObject({ state: "in_progress", owner: "bob", lease: { owner: "bob" } });
      expect(reclaim?.task?.lease.token).not.toBe(lost.token);
    });

    it("refuses every write of a holder whose lease expired (fencing), so a task is never completed twice", async () => {
      await seed(2);
      const lost = (await claim("ann", 1))?.lease as NonNullable<Awaited<ReturnType<typeof claim>>>["lease"];
      await waitUntilNoLiveLease();
      // Expired but not yet reclaimed: refused all the same.
      await expect(store.update("1", { state: "completed" }, { lease: lost })).rejects.toBeInstanceOf(TaskLeaseError);
      await expect(store.renewLease(lost)).rejects.toThrow(/ann's lease on task 1 .* is no longer held/);
      const taken = await claim("bob", LONG);
      expect(taken).toMatchObject({ id: "1", owner: "bob" });
      await expect(store.update("1", { state: "completed", metadata: { by: "ann" } }, { lease: lost })).rejects.toBeInstanceOf(TaskLeaseError);
      await store.update("1", { state: "completed", metadata: { by: "bob" } }, { lease: taken?.lease as typeof lost });
      expect(await store.get("1")).toMatchObject({ state: "completed", owner: "bob", metadata: { by: "bob" } });
      // Once completed the lease is gone: a second completion by the same holder is refused too.
      await expect(store.update("1", { state: "completed" }, { lease: taken?.lease as typeof lost })).rejects.toBeInstanceOf(TaskLeaseError);
      expect(await store.activeLeases()).toBe(0);
    });

    it("lets the holder of a live lease write, and ends the lease when someone else sets the task back", async () => {
      await seed(1);
      const held = (await claim("ann", LONG))?.lease as NonNullable<Awaited<ReturnType<typeof claim>>>["lease"];
      expect(await store.update("1", { metadata: { progress: 1 } }, { lease: held })).toMatchObject({ state: "in_progress", metadata: { progress: 1 } });
      await store.renewLease(held, LONG);
      await store.update("1", { state: "pending", owner: null });
      expect(await store.activeLeases()).toBe(0);
      await expect(store.update("1", { state: "completed" }, { lease: held })).rejects.toBeInstanceOf(TaskLeaseError);
      const again = await claim("bob", LONG);
      expect(again?.lease.token).not.toBe(held.token);
      await expect(store.renewLease(held)).rejects.toBeInstanceOf(TaskLeaseError);
    });

    it("returns every expired task to pending in one claim, even when it claims a different one", async () => {
      await seed(4);
      // Two tasks held at once by short leases; should a lease run out before the next claim, that
      // claim takes the task back and the loop claims again.
      const held = new Map<string, string>();
      let claimer = 0;
      await eventually("two tasks held at once", async () => {
        const step = await store.claimNext(`w${++claimer}`, { leaseMs: 500 });
        for (const lease of step.expired) held.delete(lease.taskId);
        if (step.task) held.set(step.task.id, step.task.owner as string);
        return held.size === 2;
      });
      await waitUntilNoLiveLease();
      const step = await store.claimNext("bob", { leaseMs: LONG });
      expect(step.task).toMatchObject({ id: "1", owner: "bob" });
      expect(step.expired.map((lease) => [lease.taskId, lease.owner])).toEqual([...held].sort(([a], [b]) => Number(a) - Number(b)));
      const others = [...held.keys()].filter((id) => id !== "1");
      expect(others).not.toEqual([]);
      for (const id of others) expect(await store.get(id)).toMatchObject({ state: "pending", owner: null });
    });

    it("refuses a lease that is not a whole number of milliseconds up to a day", async () => {
      await seed(1);
      await expect(store.claimNext("ann", { leaseMs: 0 })).rejects.toThrow(/whole number of milliseconds/);
      await expect(store.claimNext("ann", { leaseMs: 1.5 })).rejects.toBeInstanceOf(TaskRuleError);
      await expect(store.claimNext("ann", { leaseMs: 2 * 86_400_000 })).rejects.toBeInstanceOf(TaskRuleError);
      expect(await store.get("1")).toMatchObject({ state: "pending" });
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
      await expect(store.replaceAll([{ id: " ", subject: "a" }])).rejects.toThrow(/id " " is not accepted/);
      await expect(store.replaceAll([{ id: "PROJ-1", subject: "a" }, { id: "PROJ-1", subject: "b" }])).rejects.toThrow(/"PROJ-1" appears twice/);
      expect(await store.list()).toEqual(before);
      expect((await store.create({ subject: "next", description: "" })).id).toBe("8");
    });

    it("imports tasks with outside ids: each gets a new board id, keeps its own as metadata.externalId, and its edges are mapped", async () => {
      await seed(3);
      await store.remove("3");
      const imported = await store.replaceAll([
        { id: "PROJ-1", subject: "Design the schema", metadata: { source: "jira" } },
        { id: "PROJ-2", subject: "Write the migration", blockedBy: ["PROJ-1"] },
        { id: "1", subject: "Already on the board", blocks: ["PROJ-2"] },
        { id: "PROJ-3", subject: "Ship it", blockedBy: ["PROJ-2", "1"], state: "completed" },
      ]);
      // Board id 1 stays; the outside ids get ids the board never used (3 was used, then deleted).
      expect(imported.map((task) => [task.id, task.metadata["externalId"], task.blocks, task.blockedBy])).toEqual([
        ["1", undefined, ["5", "6"], []],
        ["4", "PROJ-1", ["5"], []],
        ["5", "PROJ-2", ["6"], ["1", "4"]],
        ["6", "PROJ-3", [], ["1", "5"]],
      ]);
      expect(await store.list()).toEqual(imported);
      expect(await store.get("4")).toMatchObject({ subject: "Design the schema", metadata: { source: "jira", externalId: "PROJ-1" } });
      expect(await store.get("6")).toMatchObject({ state: "completed" });
      await expect(store.replaceAll([{ id: "PROJ-9", subject: "a", blockedBy: ["PROJ-8"] }])).rejects.toThrow(/"PROJ-8" does not exist/);
      await expect(store.replaceAll([{ id: "PROJ-9", subject: "a", metadata: { externalId: "OTHER" } }])).rejects.toThrow(/metadata.externalId "OTHER"/);
      expect(await store.list()).toEqual(imported);
      expect((await store.create({ subject: "next", description: "" })).id).toBe("7");
    });

    // TaskList's view as the store computes it must be the view of the whole board (taskListPage),
    // for every filter, however the board got where it is: this checks the store's own bookkeeping
    // of which tasks are free (counts of open blockers, kept by every change) against the graph.
    const FILTERS: TaskListFilter[] = [
      { limit: 50 },
      { limit: 3 },
      { limit: 50, status: "pending" },
      { limit: 2, status: "pending" },
      { limit: 50, status: "in_progress" },
      { limit: 50, status: "completed" },
      { limit: 50, ready: true },
      { limit: 1, ready: true },
      { limit: 50, owner: "ann" },
      { limit: 50, owner: "ann", status: "pending" },
      { limit: 50, owner: "nobody" },
    ];
    const viewMatchesBoard = async (when: string) => {
      const board = new TaskBoard({ store });
      const tasks = await store.list();
      for (const filter of FILTERS) {
        const expected = taskListPage(tasks, filter);
        expect({ when, filter, page: await board.listView(filter) }).toEqual({ when, filter, page: expected });
      }
    };

    it("computes TaskList's view as the whole board would give it, through claims, completions, edges, owners and deletes", async () => {
      await viewMatchesBoard("empty");
      await store.replaceAll([
        { id: "1", subject: "a" },
        { id: "2", subject: "b", blockedBy: ["1"] },
        { id: "3", subject: "c", blockedBy: ["1", "2"] },
        { id: "4", subject: "d", state: "completed" },
        { id: "5", subject: "e", blockedBy: ["4"] },
        { id: "6", subject: "f", owner: "ann" },
        { id: "7", subject: "g", blockedBy: ["6"], owner: "ann" },
        { id: "8", subject: "h", state: "in_progress", owner: "bob" },
        { id: "9", subject: "i", blockedBy: ["8"] },
      ]);
      await viewMatchesBoard("imported");
      const first = await claim("ann", LONG);
      await viewMatchesBoard("claimed");
      await store.update(first?.id as string, { state: "completed" }, { lease: first?.lease as NonNullable<typeof first>["lease"] });
      await viewMatchesBoard("completed under a lease");
      await store.update("2", { state: "completed" });
      await viewMatchesBoard("completed without a lease");
      await store.update("2", { state: "pending" });
      await viewMatchesBoard("set back to pending");
      await store.update("9", { addBlockedBy: ["5", "2"] });
      await viewMatchesBoard("edges added");
      await store.update("3", { owner: "ann" });
      await store.update("6", { owner: null });
      await viewMatchesBoard("owners changed");
      await store.remove("8");
      await viewMatchesBoard("a blocker deleted");
      await store.update("5", { addBlocks: ["6"] });
      await store.update("4", { state: "pending" });
      await viewMatchesBoard("a completed blocker reopened");
      const created = await store.create({ subject: "new", description: "" });
      await store.update(created.id, { addBlockedBy: ["1"], addBlocks: ["3"] });
      await viewMatchesBoard("a created task linked both ways");
    });

    it("completes a held task and claims the next in one step, the task it frees included", async () => {
      const board = new TaskBoard({ store });
      await store.replaceAll([
        { id: "1", subject: "first" },
        { id: "2", subject: "after first", blockedBy: ["1"] },
        { id: "3", subject: "after second", blockedBy: ["2"] },
      ]);
      const one = await board.claimNext("ann", { leaseMs: LONG });
      const step = await board.completeAndClaim(one?.lease as NonNullable<typeof one>["lease"], { result: "ok" }, "ann", { leaseMs: LONG });
      expect(step.completed).toMatchObject({ id: "1", state: "completed", metadata: { result: "ok" } });
      expect(step.claim.task).toMatchObject({ id: "2", state: "in_progress", owner: "ann" });
      await viewMatchesBoard("completed and claimed");
      // A completion whose lease was lost is refused, and the claim happens all the same.
      const two = step.claim.task as NonNullable<typeof step.claim.task>;
      await store.update("2", { state: "pending", owner: null });
      const refused = await board.completeAndClaim(two.lease, { result: "late" }, "bob", { leaseMs: LONG });
      expect(refused.completed).toBeInstanceOf(TaskLeaseError);
      expect(refused.claim.task).toMatchObject({ id: "2", owner: "bob" });
      expect(await store.get("2")).toMatchObject({ state: "in_progress", owner: "bob", metadata: {} });
      const last = await board.completeAndClaim(refused.claim.task?.lease as typeof two.lease, undefined, "bob", { leaseMs: LONG });
      expect(last.claim.task).toMatchObject({ id: "3" });
      const done = await board.completeAndClaim(last.claim.task?.lease as typeof two.lease, undefined, "bob", { leaseMs: LONG });
      expect(done.claim.task).toBeUndefined();
      expect((await store.list()).map((task) => task.state)).toEqual(["completed", "completed", "completed"]);
      await viewMatchesBoard("drained");
    });

    it("completes a task that frees two and still blocks a third: claims the lower freed one, the other stays free, the third waits on", async () => {
      const board = new TaskBoard({ store });
      await store.replaceAll([
        { id: "1", subject: "root" },
        { id: "2", subject: "other root" },
        { id: "3", subject: "after root", blockedBy: ["1"] },
        { id: "4", subject: "after root too", blockedBy: ["1"] },
        { id: "5", subject: "after both roots", blockedBy: ["1", "2"] },
      ]);
      const root = await board.claimNext("ann", { leaseMs: LONG });
      const other = await board.claimNext("bob", { leaseMs: LONG });
      expect([root?.id, other?.id]).toEqual(["1", "2"]);
      const step = await board.completeAndClaim(root?.lease as NonNullable<typeof root>["lease"], undefined, "ann", { leaseMs: LONG });
      expect(step.claim.task).toMatchObject({ id: "3", state: "in_progress", owner: "ann" });
      expect(await claim("cy", LONG)).toMatchObject({ id: "4", owner: "cy" });
      expect(await claim("dan", LONG)).toBeUndefined();
      const last = await board.completeAndClaim(other?.lease as NonNullable<typeof other>["lease"], undefined, "bob", { leaseMs: LONG });
      expect(last.claim.task).toMatchObject({ id: "5", owner: "bob" });
      await viewMatchesBoard("freed, claimed and still waiting");
      // The freed task that was claimed was counted down too: given back, it is free at once.
      await store.update("3", { state: "pending", owner: null });
      expect(await claim("dan", LONG)).toMatchObject({ id: "3", owner: "dan" });
    });

    it("completes and claims in one step while another lease ran out: that task comes back, and competes by its id", async () => {
      const board = new TaskBoard({ store });
      await seed(3);
      const ann = await board.claimNext("ann", { leaseMs: LONG });
      const lost = (await claim("bob", 1))?.lease as NonNullable<Awaited<ReturnType<typeof claim>>>["lease"];
      await eventually("bob's lease to run out", async () => (await store.activeLeases()) === 1);
      const step = await board.completeAndClaim(ann?.lease as NonNullable<typeof ann>["lease"], undefined, "ann", { leaseMs: LONG });
      expect(step.completed).toMatchObject({ id: "1", state: "completed" });
      expect(step.claim.expired).toEqual([lost]);
      expect(step.claim.task).toMatchObject({ id: "2", owner: "ann" });
      expect(step.claim.task?.lease.token).not.toBe(lost.token);
      expect(await store.get("3")).toMatchObject({ state: "pending", owner: null });
    });

    it("completes and claims a task given to the claimer before a higher-numbered free one, and leaves others' tasks alone", async () => {
      const board = new TaskBoard({ store });
      await seed(4);
      await store.update("2", { owner: "ann" });
      await store.update("3", { owner: "bob" });
      const first = await board.claimNext("ann", { leaseMs: LONG });
      expect(first).toMatchObject({ id: "1" });
      const step = await board.completeAndClaim(first?.lease as NonNullable<typeof first>["lease"], undefined, "ann", { leaseMs: LONG });
      expect(step.claim.task).toMatchObject({ id: "2", owner: "ann" });
      const next = await board.completeAndClaim(step.claim.task?.lease as NonNullable<typeof first>["lease"], undefined, "ann", { leaseMs: LONG });
      expect(next.claim.task).toMatchObject({ id: "4", owner: "ann" });
      expect(await store.get("3")).toMatchObject({ state: "pending", owner: "bob" });
    });

    it("finds tasks by the outside id an import kept, and several by id at once", async () => {
      await store.replaceAll([
        { id: "PROJ-1", subject: "Design" },
        { id: "PROJ-2", subject: "Build", blockedBy: ["PROJ-1"] },
        { id: "9", subject: "Inside" },
      ]);
      const board = new TaskBoard({ store });
      expect((await board.find("PROJ-2")).blockedBy).toEqual([(await board.find("PROJ-1")).id]);
      await expect(board.find("PROJ-3")).rejects.toThrow(/"PROJ-3" does not exist: it is not a board id .* no task keeps it as its outside id/);
      await expect(board.find("42")).rejects.toThrow(/"42" does not exist \(existing ids: 9, 10, 11\)/);
      expect((await board.getMany(["11", "9", "77"])).map((task) => task.subject)).toEqual(["Inside", "Build"]);
    });

    it("lets the model's tools name an imported task by its outside id, and shows that id on the task's line", async () => {
      await seed(7);
      for (let id = 1; id <= 6; id++) await store.remove(String(id));
      await store.replaceAll([
        { id: "7", subject: "Already here" },
        { id: "PROJ-1", subject: "Design the schema" },
        { id: "PROJ-2", subject: "Write the migration", blockedBy: ["PROJ-1"] },
        { id: "PROJ-3", subject: "Ship it" },
      ]);
      const board = new TaskBoard({ store, agentName: "ann" });
      const tools = new Map(board.tools().map((tool) => [tool.name, tool]));
      const call = async (name: string, args: unknown) => (tools.get(name) as NonNullable<ReturnType<typeof tools.get>>).invoke(args);
      const list = (await call("TaskList", {})).text;
      expect(list).toContain("#8 (PROJ-1) [pending] Design the schema");
      expect(list).toContain("#9 (PROJ-2) [pending] Write the migration — blocked by #8");
      expect(await call("TaskGet", { task_id: "PROJ-1" })).toMatchObject({ isError: false, text: expect.stringMatching(/^Task #8: Design the schema\nOutside id: PROJ-1\n/) });
      expect(await call("TaskUpdate", { task_id: "PROJ-3", add_blocked_by: ["PROJ-2"] })).toEqual({
        isError: false,
        text: "Updated task #10 (PROJ-3) [pending] Ship it — blocked by #9",
      });
      expect((await call("TaskUpdate", { task_id: "#PROJ-1", status: "in_progress" })).text).toBe("Updated task #8 (PROJ-1) [in_progress] Design the schema (owner: ann)");
      expect((await call("TaskUpdate", { task_id: "PROJ-1", status: "completed" })).text).toContain("Now free to start: #9.");
      expect(await call("TaskUpdate", { task_id: "PROJ-9", status: "completed" })).toMatchObject({
        isError: true,
        text: expect.stringMatching(/"PROJ-9" does not exist: it is not a board id .* no task keeps it as its outside id/),
      });
      expect(await call("TaskUpdate", { task_id: "7", add_blocks: ["PROJ-4"] })).toMatchObject({ isError: true, text: expect.stringContaining('"PROJ-4" does not exist') });
      expect((await call("TaskUpdate", { task_id: "PROJ-3", status: "deleted" })).text).toBe("Deleted task #10 (PROJ-3): Ship it. Its dependency links with #9 were removed.");
      expect((await store.list()).map((task) => task.id)).toEqual(["7", "8", "9"]);
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
