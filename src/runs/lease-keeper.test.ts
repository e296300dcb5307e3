import { expect, it } from "vitest";
import type { RunLease, RunStore } from "../stores/run-store.js";
import { keepLease } from "./lease-keeper.js";

it("renews the leases a process keeps in one store on one clock, so their renewals arrive together", async () => {
  /** Renewals, grouped by the turn of the event loop they arrived in. */
  const turns: string[][] = [];
  let current: string[] | undefined;
  let renewedOften!: () => void;
  const allRenewed = new Promise<void>((resolve) => (renewedOften = resolve));
  const store = {
    async renewLease(lease: RunLease) {
      if (!current) {
        turns.push((current = []));
        setImmediate(() => (current = undefined));
      }
      current.push(lease.runId);
      if (turns.flat().length >= 9) renewedOften();
    },
  } as unknown as RunStore;
  const lease = (runId: string): RunLease => ({ runId, holder: "me", token: 1 });
  // Taken at different moments, as a worker claims its runs one after the other.
  const later = () => new Promise((resolve) => setTimeout(resolve, 20));
  const first = keepLease(store, lease("a"), 90);
  await later();
  const second = keepLease(store, lease("b"), 90);
  await later();
  const third = keepLease(store, lease("c"), 90);
  try {
    await allRenewed;
    // Once all three are kept, each tick renews them all.
    expect(turns.at(-1)).toEqual(["a", "b", "c"]);
  } finally {
    [first, second, third].forEach((keeper) => keeper.stop());
  }
});

it("keeps renewing the leases still kept after another keeper stopped", async () => {
  const renewed: string[] = [];
  let renewedB!: () => void;
  const bRenewed = new Promise<void>((resolve) => (renewedB = resolve));
  const store = {
    async renewLease(lease: RunLease) {
      renewed.push(lease.runId);
      if (lease.runId === "b") renewedB();
    },
  } as unknown as RunStore;
  const a = keepLease(store, { runId: "a", holder: "me", token: 1 }, 60);
  const b = keepLease(store, { runId: "b", holder: "me", token: 1 }, 60);
  a.stop();
  a.stop();
  await bRenewed;
  b.stop();
  expect(renewed).not.toContain("a");
});
