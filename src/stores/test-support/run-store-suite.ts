import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../core/events.js";
import { RunBusyError, RunLeaseLostError, type RunLease, type RunStore } from "../run-store.js";

/** How a suite gets a store, and a second one on the same data as another process would open it. */
export type RunStoreFixture = {
  store: RunStore;
  reopen(): Promise<RunStore>;
  cleanup(): Promise<void>;
};

const LONG = 60_000;

const event = (input: string): AgentEvent => ({ type: "run-start", agent: "a", time: 1, input });

/** Takes the run as soon as its (short) lease has expired. */
async function takeOver(store: RunStore, runId: string, holder: string): Promise<RunLease> {
  for (;;) {
    try {
      return await store.acquireLease(runId, holder, LONG);
    } catch (error) {
      if (!(error instanceof RunBusyError)) throw error;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** The behaviour every RunStore must have, run against each implementation. */
export function describeRunStore(name: string, open: () => Promise<RunStoreFixture>): void {
  describe(`RunStore behaviour: ${name}`, () => {
    let fixture: RunStoreFixture;
    let store: RunStore;
    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    const newRun = (task = "write a report") => ({ id: randomUUID(), task, strategy: "notebook", model: "scripted:demo" });

    it("keeps runs, numbered events, checkpoints and settings, readable from another connection", async () => {
      const run = newRun();
      const lease = await store.createRun(run, { workspace: "/tmp/w" }, "driver-1", LONG);
      expect(await store.appendEvent(lease, event("one"))).toBe(1);
      expect(await store.appendEvent(lease, event("two"))).toBe(2);
      await store.saveCheckpoint(lease, { version: 1, memory: [] });
      await store.saveCheckpoint(lease, { version: 1, memory: [{ role: "user", content: "x" }] });
      await store.saveSettings(lease, { workspace: "/tmp/w", approval: "plan" });
      await store.updateRun(lease, { status: "finished", answer: "done" });

      const other = await fixture.reopen();
      try {
        const read = await other.getRun(run.id);
        expect(read).toMatchObject({ ...run, status: "finished", answer: "done", lease: { holder: "driver-1" }, decided: false });
        expect(Date.parse(read?.updatedAt ?? "")).toBeGreaterThanOrEqual(Date.parse(read?.createdAt ?? ""));
        expect((await other.events(run.id)).map((e) => [e.seq, e.event.type === "run-start" && e.event.input])).toEqual([
          [1, "one"],
          [2, "two"],
        ]);
        expect((await other.events(run.id, 1)).map((e) => e.seq)).toEqual([2]);
        expect(await other.loadCheckpoint(run.id)).toEqual({ version: 1, memory: [{ role: "user", content: "x" }] });
        expect(await other.loadSettings(run.id)).toEqual({ workspace: "/tmp/w", approval: "plan" });
        expect(await other.getRun("no-such-run")).toBeUndefined();
        expect(await other.loadCheckpoint("no-such-run")).toBeUndefined();
      } finally {
        await other.close();
      }
    });

    it("lists runs newest first", async () => {
      const first = newRun("first");
      const second = newRun("second");
      await store.createRun(first, {}, "d", LONG);
      await store.createRun(second, {}, "d", LONG);
      const ids = (await store.listRuns(1000)).map((r) => r.id);
      expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
      expect(ids.indexOf(first.id)).toBeGreaterThanOrEqual(0);
    });

    it("refuses to hand out a held lease, naming its holder, and hands out a released or expired one with a newer token", async () => {
      const run = newRun();
      const first = await store.createRun(run, {}, "driver-1", LONG);
      await expect(store.acquireLease(run.id, "driver-2", LONG)).rejects.toThrow(new RunBusyError(run.id, "driver-1"));
      await store.releaseLease(first);
      const second = await store.acquireLease(run.id, "driver-2", 1);
      expect(second.token).toBeGreaterThan(first.token);
      expect((await takeOver(store, run.id, "driver-3")).token).toBeGreaterThan(second.token);
    });

    it("refuses every write of a driver whose lease was taken over, naming who took it", async () => {
      const run = newRun();
      const stale = await store.createRun(run, {}, "driver-1", 1);
      await store.appendEvent(stale, event("before"));
      await store.saveCheckpoint(stale, { n: 1 });
      await takeOver(store, run.id, "driver-2");
      const lost = new RunLeaseLostError(run.id, "driver-1", "driver-2");
      await expect(store.appendEvent(stale, event("after"))).rejects.toThrow(lost);
      await expect(store.saveCheckpoint(stale, { n: 2 })).rejects.toThrow(lost);
      await expect(store.saveSettings(stale, { x: 1 })).rejects.toThrow(lost);
      await expect(store.updateRun(stale, { status: "failed" })).rejects.toThrow(lost);
      await expect(store.renewLease(stale, LONG)).rejects.toThrow(lost);
      await store.releaseLease(stale);
      expect(await store.loadCheckpoint(run.id)).toEqual({ n: 1 });
      expect((await store.events(run.id)).length).toBe(1);
      expect(await store.getRun(run.id)).toMatchObject({ status: "running", lease: { holder: "driver-2" } });
    });

    it("lets exactly one of many racing takers win an expired lease", async () => {
      const run = newRun();
      await store.createRun(run, {}, "dead-driver", 1);
      const others = await Promise.all(Array.from({ length: 4 }, () => fixture.reopen()));
      try {
        await expect.poll(async () => (await store.resumableRuns(1000)).some((r) => r.id === run.id)).toBe(true);
        const results = await Promise.allSettled(
          [store, ...others].flatMap((s, i) => [s.acquireLease(run.id, `taker-${i}a`, LONG), s.acquireLease(run.id, `taker-${i}b`, LONG)]),
        );
        const won = results.filter((r) => r.status === "fulfilled");
        expect(won).toHaveLength(1);
        for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(RunBusyError);
        expect((await store.resumableRuns(1000)).some((r) => r.id === run.id)).toBe(false);
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
    });

    it("hands a held lease to a taker that names its holder as dead, once", async () => {
      const run = newRun();
      const dead = await store.createRun(run, {}, "dead-driver", LONG);
      const results = await Promise.allSettled([
        store.acquireLease(run.id, "taker-1", LONG, "dead-driver"),
        store.acquireLease(run.id, "taker-2", LONG, "dead-driver"),
      ]);
      const won = results.filter((r): r is PromiseFulfilledResult<RunLease> => r.status === "fulfilled");
      expect(won).toHaveLength(1);
      expect(won[0]?.value.token).toBeGreaterThan(dead.token);
      const loser = results.find((r) => r.status === "rejected");
      expect(loser?.status === "rejected" && loser.reason).toEqual(new RunBusyError(run.id, won[0]?.value.holder ?? ""));
    });

    it("keeps decisions for a paused run until its resumer takes them, once", async () => {
      const run = newRun();
      const lease = await store.createRun(run, {}, "driver-1", LONG);
      expect(await store.submitDecisions(run.id, { c1: { action: "approve" } })).toBe(false);
      await store.updateRun(lease, { status: "awaiting-approval" });
      await store.releaseLease(lease);
      expect((await store.resumableRuns(1000)).some((r) => r.id === run.id)).toBe(false);
      expect(await store.submitDecisions(run.id, { c1: { action: "approve" } })).toBe(true);
      expect(await store.submitDecisions(run.id, { c1: { action: "reject" } })).toBe(false);
      expect(await store.getRun(run.id)).toMatchObject({ decided: true, lease: null });
      expect((await store.resumableRuns(1000)).some((r) => r.id === run.id)).toBe(true);
      const resumer = await store.acquireLease(run.id, "worker", LONG);
      expect(await store.takeDecisions(resumer)).toEqual({ c1: { action: "approve" } });
      expect(await store.takeDecisions(resumer)).toBeUndefined();
    });

    it("tells subscribers in other connections which run changed", async () => {
      const other = await fixture.reopen();
      const seen = new Set<string>();
      const stop = await other.subscribe((runId) => seen.add(runId));
      try {
        const run = newRun();
        const lease = await store.createRun(run, {}, "d", LONG);
        await store.appendEvent(lease, event("x"));
        await expect.poll(() => seen.has(run.id)).toBe(true);
        seen.clear();
        await store.updateRun(lease, { status: "finished" });
        await expect.poll(() => seen.has(run.id)).toBe(true);
      } finally {
        await stop();
        await other.close();
      }
    });
  });
}
