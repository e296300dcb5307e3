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
 * another process takes the run over while this one still starts it.
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
  const timer = setInterval(() => {
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
  }, Math.max(10, Math.floor(leaseMs / 3)));
  timer.unref();
  return {
    get lost() {
      return lost;
    },
    onLost(listener) {
      if (lost) listener(lost);
      else listeners.push(listener);
    },
    stop: () => clearInterval(timer),
  };
}
