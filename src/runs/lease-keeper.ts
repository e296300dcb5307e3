import { RunLeaseLostError, type RunLease, type RunStore } from "../stores/run-store.js";

/** Keeps a run's lease renewed while this process works on the run, and says when it was lost. */
export interface LeaseKeeper {
  /** Set once the lease is lost: another process took the run, or it ran out while the store could not be reached. */
  readonly lost: RunLeaseLostError | undefined;
  /** Calls `listener` when the lease is lost (at once, if it is lost already). */
  onLost(listener: (error: RunLeaseLostError) => void): void;
  stop(): void;
}

/**
 * Renews the lease at a third of its length, from the moment it is taken: what comes before the drive
 * (connecting the run's tools, an MCP server's listing or authorization) must not let it run out, or
 * another process takes the run over while this one still starts it. The leases of one store and length
 * are renewed on one shared clock, so that a process driving many runs sends their renewals together
 * (a store may write them in one statement).
 */
export function keepLease(store: RunStore, lease: RunLease, leaseMs: number): LeaseKeeper {
  let lost: RunLeaseLostError | undefined;
  const listeners: ((error: RunLeaseLostError) => void)[] = [];
  const lose = (error: RunLeaseLostError) => {
    if (lost) return;
    lost = error;
    for (const listener of listeners.splice(0)) listener(error);
  };
  let validUntil = Date.now() + leaseMs;
  let renewing = false;
  const stopTicks = onRenewalTick(store, leaseMs, () => {
    if (renewing) return;
    renewing = true;
    const asked = Date.now();
    store
      .renewLease(lease, leaseMs)
      .then(
        () => {
          validUntil = asked + leaseMs;
        },
        (error: unknown) => {
          if (error instanceof RunLeaseLostError) lose(error);
          else if (Date.now() >= validUntil) lose(new RunLeaseLostError(lease.runId, lease.holder, null, "its lease ran out while the store could not be reached"));
        },
      )
      .finally(() => (renewing = false));
  });
  return {
    get lost() {
      return lost;
    },
    onLost(listener) {
      if (lost) listener(lost);
      else listeners.push(listener);
    },
    stop: stopTicks,
  };
}

type RenewalClock = { listeners: Set<() => void>; timer: ReturnType<typeof setInterval> };

/** One clock per store and lease length, running while some lease is kept on it. */
const renewalClocks = new WeakMap<RunStore, Map<number, RenewalClock>>();

/** Calls `listener` every third of `leaseMs`, on the clock the store's other leases of that length share; returns the stop. */
function onRenewalTick(store: RunStore, leaseMs: number, listener: () => void): () => void {
  let clocks = renewalClocks.get(store);
  if (!clocks) renewalClocks.set(store, (clocks = new Map()));
  let clock = clocks.get(leaseMs);
  if (!clock) {
    const listeners = new Set<() => void>();
    const timer = setInterval(() => listeners.forEach((tick) => tick()), Math.max(10, Math.floor(leaseMs / 3)));
    timer.unref();
    clocks.set(leaseMs, (clock = { listeners, timer }));
  }
  const { listeners, timer } = clock;
  listeners.add(listener);
  return () => {
    if (!listeners.delete(listener) || listeners.size > 0) return;
    clearInterval(timer);
    clocks.delete(leaseMs);
  };
}
