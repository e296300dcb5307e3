import { setMaxListeners } from "node:events";
import type { RunRecord } from "../stores/run-store.js";
import type { RunOutcome } from "./run-driver.js";
import type { Runs } from "./runs.js";

export type WorkOptions = {
  /** Stops taking runs; the runs being driven stop after their current step, checkpointed, and are handed back (still running, their leases let go) for another worker. */
  signal: AbortSignal;
  /** Take what is waiting now (and what frees up meanwhile), each run once, then return once nothing is left to drive. */
  once?: boolean;
  /** How many runs this worker drives at once (default 1), each with its own lease and heartbeat. */
  concurrency?: number;
  /**
   * The longest an idle worker waits before it tries to claim again (ms, default 5 000). It is woken
   * sooner when a run is let go or decided (announced by the store) and when a held lease runs out.
   */
  scanMs?: number;
  /** Told about each run taken: how its drive ended, or why it failed; runs are driven on meanwhile. */
  onRun?: (run: RunRecord, result: RunOutcome | Error) => void | Promise<void>;
  /** Told each time the worker has free room, finds nothing to claim, and waits (or, with `once`, returns). */
  onIdle?: () => void | Promise<void>;
};

/**
 * Drives the runs that need a driver, up to `concurrency` at once: running ones whose lease ran out
 * (their driver died) or was let go, and paused ones with decisions submitted. Each is claimed with
 * its lease in one step (`Runs.claimNext`), so of several workers none races another for a run. A run
 * that cannot be resumed here (see `RunsOptions.resumeAttempts`) is left for longer after each
 * failure, and claims pass it by meanwhile; a slow or failing run holds no other. Returns when
 * `signal` aborts, after each run being driven has stopped.
 */
export async function workRuns(runs: Runs, opts: WorkOptions): Promise<void> {
  const concurrency = opts.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a whole number of runs, 1 or more; got ${concurrency}`);
  const driving = new Set<Promise<void>>();
  // With `once`, the runs already taken: one whose resume failed is not taken again at once.
  const taken: string[] = [];
  // Every drive listens on it: one listener a run, up to `concurrency` at once, is no leak.
  const handBack = new AbortController();
  setMaxListeners(concurrency + 10, handBack.signal);
  // Set by every wake-up (a run freed, a drive ended, the signal): a claim round that follows it looks again.
  let woken = false;
  let wake: (() => void) | undefined;
  const poke = () => {
    woken = true;
    wake?.();
  };
  const stop = () => {
    handBack.abort();
    poke();
  };
  const off = await runs.stores.runs.subscribeClaimable(poke);
  opts.signal.addEventListener("abort", stop);
  if (opts.signal.aborted) handBack.abort();
  const drive = (claimed: { run: RunRecord; done: Promise<RunOutcome> }) => {
    const driven = claimed.done
      .then(
        (outcome) => outcome,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      )
      .then((result) => opts.onRun?.(claimed.run, result))
      .catch(() => undefined)
      .finally(() => {
        driving.delete(driven);
        poke();
      });
    driving.add(driven);
  };
  try {
    while (!opts.signal.aborted) {
      woken = false;
      let missed = false;
      while (driving.size < concurrency && !opts.signal.aborted && !missed) {
        // A claim for every free slot at once: a store may take them in one statement.
        const resume = { handBack: handBack.signal, ...(opts.once ? { passOver: [...taken] } : {}) };
        const claims = Array.from({ length: concurrency - driving.size }, () => runs.claimNext(resume));
        // Every run claimed is driven, even when another claim failed (the failure then ends the worker).
        const settled = await Promise.allSettled(claims);
        for (const claim of settled) {
          if (claim.status === "rejected") continue;
          if (!claim.value) {
            missed = true;
            continue;
          }
          if (opts.once) taken.push(claim.value.run.id);
          drive(claim.value);
        }
        const failed = settled.find((claim) => claim.status === "rejected");
        if (failed) throw failed.reason;
      }
      if (opts.signal.aborted) break;
      if (missed) {
        if (opts.once && driving.size === 0) return await opts.onIdle?.();
        await opts.onIdle?.();
      }
      if (woken) continue;
      // Full: a drive that ends wakes the worker. Idle: a freed run does, or the first held lease to run out.
      const next = missed && !opts.once ? await runs.stores.runs.nextClaimInMs() : undefined;
      const waitMs = missed && !opts.once ? Math.min(opts.scanMs ?? 5_000, next ?? Infinity) : undefined;
      if (woken) continue;
      await new Promise<void>((resolve) => {
        const timer = waitMs === undefined ? undefined : setTimeout(resolve, waitMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    opts.signal.removeEventListener("abort", stop);
    await off();
    // The signal reached every drive (`handBack`): each stops after its step, checkpointed, and lets its lease go for another worker.
    await Promise.all(driving);
  }
}
