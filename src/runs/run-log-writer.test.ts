import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../core/events.js";
import { RunLeaseLostError, type RunCheckpoint, type RunLease, type RunStore } from "../stores/run-store.js";
import { RunLogWriter } from "./run-log-writer.js";

const lease: RunLease = { runId: "r", holder: "me", token: 1 };
const event = (input: string): AgentEvent => ({ type: "run-start", agent: "a", time: 1, input });
const inputs = (events: readonly AgentEvent[]) => events.map((e) => (e.type === "run-start" ? e.input : e.type));

/** A store whose writes wait until the test lets each one finish (or fail). */
function heldStore() {
  const writes: { events: readonly AgentEvent[]; checkpoint?: RunCheckpoint; finish: (error?: unknown) => void }[] = [];
  let logged = 0;
  let arrived: (() => void) | undefined;
  const store = {
    appendEvents: (_lease: RunLease, events: readonly AgentEvent[], checkpoint?: RunCheckpoint) =>
      new Promise<number>((resolve, reject) => {
        writes.push({
          events,
          ...(checkpoint ? { checkpoint } : {}),
          finish: (error) => (error ? reject(error) : resolve((logged += events.length))),
        });
        arrived?.();
      }),
  } as unknown as RunStore;
  const nextWrite = async (n: number) => {
    while (writes.length < n) await new Promise<void>((resolve) => (arrived = resolve));
    return writes[n - 1]!;
  };
  return { store, writes, nextWrite };
}

function writer(store: RunStore, state: () => unknown = () => ({ at: "now" })) {
  const written: [string, number][] = [];
  const failures: unknown[] = [];
  const lost: RunLeaseLostError[] = [];
  const log = new RunLogWriter({
    store,
    lease,
    checkpoint: state,
    onWritten: (e, seq) => written.push([inputs([e])[0]!, seq]),
    onLeaseLost: (error) => lost.push(error),
    onWriteFailed: (error) => failures.push(error),
  });
  return { log, written, failures, lost };
}

describe("RunLogWriter", () => {
  it("writes what arrives while a write is in flight in one next write, in order, with the checkpoint when one is due", async () => {
    const { store, writes, nextWrite } = heldStore();
    let state = 0;
    const { log, written } = writer(store, () => ({ state }));
    log.add(event("one"));
    const first = await nextWrite(1);
    log.add(event("two"));
    log.add(event("three"), true);
    state = 3;
    log.add(event("four"));
    first.finish();
    const second = await nextWrite(2);
    expect(inputs(second.events)).toEqual(["two", "three", "four"]);
    // Read when the write starts: the state after everything it carries.
    expect(second.checkpoint).toEqual({ state: { state: 3 } });
    second.finish();
    await log.flush();
    expect(writes).toHaveLength(2);
    expect(written).toEqual([
      ["one", 1],
      ["two", 2],
      ["three", 3],
      ["four", 4],
    ]);
  });

  it("flush(true) writes a checkpoint even with no event queued, and rejects when that write failed", async () => {
    const { store, nextWrite } = heldStore();
    const { log, failures } = writer(store);
    const flushed = log.flush(true);
    const write = await nextWrite(1);
    expect(write.events).toEqual([]);
    expect(write.checkpoint).toEqual({ state: { at: "now" } });
    write.finish(new Error("disk full"));
    await expect(flushed).rejects.toThrow("disk full");
    expect(failures).toHaveLength(1);
    // A failure is reported once to its flush; the next checkpoint that is written clears it.
    const again = log.flush(true);
    (await nextWrite(2)).finish();
    await expect(again).resolves.toBeUndefined();
  });

  it("writes nothing more once the lease is lost, and says so once", async () => {
    const { store, writes, nextWrite } = heldStore();
    const { log, lost } = writer(store);
    log.add(event("one"));
    const first = await nextWrite(1);
    log.add(event("two"));
    first.finish(new RunLeaseLostError("r", "me", "other"));
    await log.flush();
    log.add(event("three"), true);
    await log.flush(true);
    expect(writes).toHaveLength(1);
    expect(lost).toHaveLength(1);
  });
});
