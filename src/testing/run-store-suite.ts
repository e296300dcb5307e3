import { randomUUID } from "node:crypto";
import type { AgentEvent } from "../core/events.js";
import { eventually, type TestFramework } from "./test-framework.js";
import { RunBusyError, RunLeaseLostError, type RunLease, type RunStore } from "../stores/run-store.js";

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

/**
 * The behaviour every RunStore must have, as tests of the framework given: ours run it against the
 * SQLite and PostgreSQL stores, and a store of your own is checked with this one call.
 */
export function describeRunStore(name: string, open: () => Promise<RunStoreFixture>, test: TestFramework): void {
  const { describe, it, beforeEach, afterEach, expect } = test;
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
      expect(await store.appendEvents(lease, [event("one")])).toBe(1);
      expect(await store.appendEvents(lease, [event("two")], { state: { version: 1, memory: [] } })).toBe(2);
      expect(await store.appendEvents(lease, [], { state: { version: 1, memory: [{ role: "user", content: "x" }] } })).toBe(2);
      await store.saveSettings(lease, { workspace: "/tmp/w", approval: "plan" });
      await store.updateRun(lease, { status: "final", answer: "done" });

      const other = await fixture.reopen();
      try {
        const read = await other.getRun(run.id);
        expect(read).toMatchObject({ ...run, status: "final", answer: "done", lease: { holder: "driver-1" }, decided: false });
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

    it("appends a batch of events in order, with its checkpoint, and numbers concurrent batches without gaps or overlaps", async () => {
      const run = newRun();
      const lease = await store.createRun(run, {}, "driver-1", LONG);
      const batch = (name: string, size: number) => Array.from({ length: size }, (_, i) => event(`${name}${i}`));
      const lasts = await Promise.all([
        store.appendEvents(lease, batch("a", 3), { state: { after: "a" } }),
        store.appendEvents(lease, batch("b", 1)),
        store.appendEvents(lease, batch("c", 4)),
      ]);
      const logged = await store.events(run.id);
      expect(logged.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      const inputs = logged.map((e) => (e.event.type === "run-start" ? e.event.input : ""));
      // Each batch is contiguous and in its order, and each call returned its own last event's number.
      for (const [name, size, last] of [["a", 3, lasts[0]], ["b", 1, lasts[1]], ["c", 4, lasts[2]]] as const) {
        expect(inputs.slice(last - size, last)).toEqual(batch(name, size).map((e) => (e.type === "run-start" ? e.input : "")));
      }
      expect(await store.loadCheckpoint(run.id)).toEqual({ after: "a" });
      expect(await store.appendEvents(lease, [])).toBe(8);
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

    it("finds runs by a literal id prefix and by status, newest first, counting all it matched", async () => {
      const ids = ["ab%_1-one", "ab%_1-two", "abx_1-three", "ab%x1-four"];
      const leases = [];
      for (const id of ids) leases.push(await store.createRun({ id, task: id, strategy: "notebook", model: "m" }, {}, "d", LONG));
      await store.updateRun(leases[1]!, { status: "final" });
      await store.updateRun(leases[3]!, { status: "awaiting-user" });
      const found = async (query: Parameters<RunStore["findRuns"]>[0]) => {
        const page = await store.findRuns(query);
        return { ids: page.runs.map((run) => run.id), total: page.total };
      };
      // "%" and "_" are the user's characters, not wildcards.
      expect(await found({ idPrefix: "ab%_", limit: 10 })).toEqual({ ids: ["ab%_1-two", "ab%_1-one"], total: 2 });
      expect(await found({ idPrefix: "ab%_", limit: 1 })).toEqual({ ids: ["ab%_1-two"], total: 2 });
      expect(await found({ idPrefix: "ab%x1-four", limit: 10 })).toEqual({ ids: ["ab%x1-four"], total: 1 });
      expect(await found({ idPrefix: "AB", limit: 10 })).toEqual({ ids: [], total: 0 });
      expect(await found({ idPrefix: "ab", status: ["running"], limit: 10 })).toEqual({ ids: ["abx_1-three", "ab%_1-one"], total: 2 });
      expect(await found({ status: ["final", "awaiting-user"], limit: 10 })).toEqual({ ids: ["ab%x1-four", "ab%_1-two"], total: 2 });
      expect((await store.findRuns({ limit: 2 })).total).toBeGreaterThanOrEqual(4);
    });

    it("sums each run's tokens per model from its logged model calls", async () => {
      const run = newRun();
      const other = newRun();
      const lease = await store.createRun(run, {}, "d", LONG);
      const otherLease = await store.createRun(other, {}, "d", LONG);
      const modelEnd = (model: string | undefined, usage?: { inputTokens: number; outputTokens: number; cacheReadInputTokens?: number }): AgentEvent => ({
        type: "model-end",
        agent: "a",
        time: 1,
        step: 1,
        message: { role: "assistant", content: "" },
        durationMs: 5,
        ...(model !== undefined ? { model } : {}),
        ...(usage ? { usage } : {}),
      });
      await store.appendEvents(lease, [modelEnd("openai:gpt-4o-mini", { inputTokens: 100, outputTokens: 10, cacheReadInputTokens: 40 })]);
      await store.appendEvents(lease, [modelEnd("openai:gpt-4o-mini", { inputTokens: 50, outputTokens: 5 })]);
      await store.appendEvents(lease, [modelEnd("anthropic:claude-sonnet-4-5", { inputTokens: 7, outputTokens: 3 })]);
      await store.appendEvents(lease, [modelEnd(undefined)]);
      await store.appendEvents(lease, [event("not a model call")]);
      await store.appendEvents(otherLease, [modelEnd("openai:gpt-4o-mini", { inputTokens: 1, outputTokens: 1 })]);
      const usage = await store.modelUsage([run.id]);
      const byModel = new Map(usage.map((u) => [u.model, u]));
      expect(usage).toHaveLength(3);
      expect(byModel.get("openai:gpt-4o-mini")).toEqual({ runId: run.id, model: "openai:gpt-4o-mini", calls: 2, inputTokens: 150, outputTokens: 15, cacheReadInputTokens: 40 });
      expect(byModel.get("anthropic:claude-sonnet-4-5")).toEqual({ runId: run.id, model: "anthropic:claude-sonnet-4-5", calls: 1, inputTokens: 7, outputTokens: 3 });
      expect(byModel.get(null)).toEqual({ runId: run.id, model: null, calls: 1, inputTokens: 0, outputTokens: 0 });
      expect((await store.modelUsage([run.id, other.id])).filter((u) => u.runId === other.id)).toHaveLength(1);
      expect(await store.modelUsage([])).toEqual([]);
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

    it("lets a run go with its last update, in the same write: free to claim when it still needs a driver, and only by its holder", async () => {
      const finished = newRun("finished");
      const finishedLease = await store.createRun(finished, {}, "driver-1", LONG);
      await store.updateRun(finishedLease, { status: "final", answer: "done", release: true });
      expect(await store.getRun(finished.id)).toMatchObject({ status: "final", answer: "done", lease: null });
      const handedBack = newRun("handed back");
      await store.updateRun(await store.createRun(handedBack, {}, "driver-1", LONG), { status: "running", release: true });
      expect(await store.claimRun("driver-2", LONG)).toMatchObject({ run: { id: handedBack.id }, lease: { holder: "driver-2" } });
      const stale = await store.acquireLease(finished.id, "driver-3", 1);
      await takeOver(store, finished.id, "driver-4");
      await expect(store.updateRun(stale, { status: "failed", release: true })).rejects.toThrow(RunLeaseLostError);
      expect(await store.getRun(finished.id)).toMatchObject({ status: "final", lease: { holder: "driver-4" } });
    });

    it("refuses every write of a driver whose lease was taken over, naming who took it", async () => {
      const run = newRun();
      const stale = await store.createRun(run, {}, "driver-1", 1);
      await store.appendEvents(stale, [event("before")], { state: { n: 1 } });
      await takeOver(store, run.id, "driver-2");
      const lost = new RunLeaseLostError(run.id, "driver-1", "driver-2");
      await expect(store.appendEvents(stale, [event("after")])).rejects.toThrow(lost);
      await expect(store.appendEvents(stale, [], { state: { n: 2 } })).rejects.toThrow(lost);
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
        await eventually("the dead driver's lease to run out", async () => (await store.resumableRuns(1000)).some((r) => r.id === run.id));
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
      await store.updateRun(lease, { status: "awaiting-user" });
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

    it("counts failed resumes with the last reason, keeps such a run out of the scan until its retry time, then lists it after runs that never failed", async () => {
      const failing = newRun("cannot resume here");
      const fresh = newRun("killed, resumable");
      const ours = async () => (await store.resumableRuns(1000)).map((r) => r.id).filter((id) => id === failing.id || id === fresh.id);
      const failOnce = async (error: string, retryInMs: number) => {
        const lease = await store.acquireLease(failing.id, "worker", LONG);
        await store.updateRun(lease, { resumeFailure: { error, retryInMs } });
        await store.releaseLease(lease);
      };
      await store.releaseLease(await store.createRun(failing, {}, "dead-driver", LONG));
      await store.releaseLease(await store.createRun(fresh, {}, "dead-driver", LONG));
      expect(await ours()).toEqual([failing.id, fresh.id]);

      await failOnce("no API key for openai here", LONG);
      const waiting = await store.getRun(failing.id);
      expect(waiting).toMatchObject({ status: "running", lease: null, resumeFailures: { count: 1, lastError: "no API key for openai here" } });
      expect(Date.parse(waiting?.resumeFailures?.retryAt ?? "")).toBeGreaterThan(Date.now() + LONG / 2);
      expect(await ours()).toEqual([fresh.id]);

      await failOnce("still no API key", 0);
      expect((await store.getRun(failing.id))?.resumeFailures).toMatchObject({ count: 2, lastError: "still no API key" });
      expect(await ours()).toEqual([fresh.id, failing.id]);

      const resumed = await store.acquireLease(failing.id, "worker", LONG);
      await store.updateRun(resumed, { resumeFailure: null });
      await store.releaseLease(resumed);
      expect((await store.getRun(failing.id))?.resumeFailures).toBeUndefined();
      expect(await ours()).toEqual([failing.id, fresh.id]);
    });

    it("claims each run that needs a driver once, oldest first, its lease taken in the same step, among racing claimers", async () => {
      const waiting = Array.from({ length: 12 }, (_, i) => newRun(`waiting ${i}`));
      for (const run of waiting) await store.releaseLease(await store.createRun(run, {}, "starter", LONG));
      const died = newRun("its driver died");
      const dead = await store.createRun(died, {}, "dead-driver", 1);
      const held = newRun("driven elsewhere");
      await store.createRun(held, {}, "live-driver", LONG);
      const undecided = newRun("paused, nobody decided");
      const pausedLease = await store.createRun(undecided, {}, "driver", LONG);
      await store.updateRun(pausedLease, { status: "awaiting-user" });
      await store.releaseLease(pausedLease);
      await eventually("the dead driver's lease to run out", async () => (await store.resumableRuns(1000)).some((r) => r.id === died.id));

      expect((await store.claimRun("first", LONG))?.run.id).toBe(waiting[0]?.id);
      const others = await Promise.all(Array.from({ length: 3 }, () => fixture.reopen()));
      try {
        const claimedBy = new Map<string, string[]>();
        await Promise.all(
          [store, ...others].map(async (claimer, i) => {
            for (let claimed = await claimer.claimRun(`claimer-${i}`, LONG); claimed; claimed = await claimer.claimRun(`claimer-${i}`, LONG)) {
              expect(claimed.run.lease).toMatchObject({ holder: `claimer-${i}` });
              await claimer.appendEvents(claimed.lease, [event("driven")]);
              claimedBy.set(claimed.run.id, [...(claimedBy.get(claimed.run.id) ?? []), `claimer-${i}`]);
            }
          }),
        );
        expect([...claimedBy.keys()].sort()).toEqual([...waiting.slice(1), died].map((r) => r.id).sort());
        for (const holders of claimedBy.values()) expect(holders).toHaveLength(1);
        await expect(store.appendEvents(dead, [event("late")])).rejects.toBeInstanceOf(RunLeaseLostError);
        expect(await store.getRun(held.id)).toMatchObject({ lease: { holder: "live-driver" } });
        expect(await store.getRun(undecided.id)).toMatchObject({ lease: null });
      } finally {
        await Promise.all(others.map((s) => s.close()));
      }
    });

    it("returns with a claim, when it reads them there, the run's settings, checkpoint and last event number as the loaders read them", async () => {
      const queued = newRun("queued, never driven");
      await store.releaseLease(await store.createRun(queued, { workspace: "/tmp/q" }, "starter", LONG));
      const driven = newRun("driven, then let go");
      const lease = await store.createRun(driven, { workspace: "/tmp/d" }, "driver", LONG);
      await store.appendEvents(lease, [event("one"), event("two")], { state: { version: 1, memory: [{ role: "user", content: "go" }] } });
      await store.appendEvents(lease, [event("three")]);
      await store.releaseLease(lease);

      for (const run of [queued, driven]) {
        const claimed = await store.claimRun("worker", LONG);
        expect(claimed?.run.id).toBe(run.id);
        const logged = await store.events(run.id);
        const expected = { settings: await store.loadSettings(run.id), checkpoint: await store.loadCheckpoint(run.id), lastSeq: logged.at(-1)?.seq ?? 0 };
        // Optional for a store: when it is left out, the driver reads the same with the loaders.
        expect(claimed?.saved ?? expected).toEqual(expected);
      }
    });

    it("claims runs whose resumes never failed before those that did, none still waiting out a failure, and none it is told to pass over", async () => {
      const failed = newRun("failed once");
      const fresh = newRun("fresh");
      const later = newRun("waits a minute");
      for (const run of [failed, fresh, later]) await store.releaseLease(await store.createRun(run, {}, "starter", LONG));
      for (const [run, retryInMs] of [[failed, 0], [later, LONG]] as const) {
        const lease = await store.acquireLease(run.id, "worker", LONG);
        await store.updateRun(lease, { resumeFailure: { error: "no key here", retryInMs } });
        await store.releaseLease(lease);
      }
      expect(await store.claimRun("w", LONG, [fresh.id, failed.id])).toBeUndefined();
      expect((await store.claimRun("w", LONG))?.run.id).toBe(fresh.id);
      expect((await store.claimRun("w", LONG))?.run).toMatchObject({ id: failed.id, resumeFailures: { count: 1 } });
      expect(await store.claimRun("w", LONG)).toBeUndefined();
      const next = await store.nextClaimInMs();
      expect(next).toBeGreaterThan(LONG / 2);
      expect(next).toBeLessThan(LONG + 1);
    });

    it("says how long a lease has been held, and how soon the first held lease runs out", async () => {
      expect(await store.nextClaimInMs()).toBeUndefined();
      const run = newRun();
      const before = Date.now();
      await store.createRun(run, {}, "driver", LONG);
      const lease = (await store.getRun(run.id))?.lease;
      expect(Date.parse(lease?.takenAt ?? "")).toBeGreaterThanOrEqual(before - 1_000);
      expect(Date.parse(lease?.takenAt ?? "")).toBeLessThan(Date.parse(lease?.expiresAt ?? ""));
      const next = await store.nextClaimInMs();
      expect(next).toBeGreaterThan(LONG / 2);
      expect(next).toBeLessThan(LONG + 1);
    });

    it("tells claimers in other connections when a run is let go or decided", async () => {
      const other = await fixture.reopen();
      let told = 0;
      const stop = await other.subscribeClaimable(() => told++);
      try {
        const ended = newRun("finishes");
        const endedLease = await store.createRun(ended, {}, "d", LONG);
        await store.updateRun(endedLease, { status: "awaiting-user" });
        await store.releaseLease(endedLease);
        const freed = newRun("let go");
        await store.releaseLease(await store.createRun(freed, {}, "d", LONG));
        await eventually("the other connection to hear of a claimable run", () => told > 0);
        told = 0;
        expect(await store.submitDecisions(ended.id, { c1: { action: "approve" } })).toBe(true);
        await eventually("the other connection to hear of a claimable run", () => told > 0);
      } finally {
        await stop();
        await other.close();
      }
    });

    it("tells subscribers in other connections which run changed", async () => {
      const other = await fixture.reopen();
      const seen = new Set<string>();
      const stop = await other.subscribe((runId) => seen.add(runId));
      try {
        const run = newRun();
        const lease = await store.createRun(run, {}, "d", LONG);
        await store.appendEvents(lease, [event("x")]);
        await eventually("the other connection to hear of the change", () => seen.has(run.id));
        seen.clear();
        await store.updateRun(lease, { status: "final" });
        await eventually("the other connection to hear of the change", () => seen.has(run.id));
      } finally {
        await stop();
        await other.close();
      }
    });
  });
}
