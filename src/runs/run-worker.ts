import { RunBusyError, type RunRecord } from "../stores/run-store.js";
import type { RunOutcome } from "./run-driver.js";
import type { Runs } from "./runs.js";

export type WorkOptions = {
  signal: AbortSignal;
  /** Take what is waiting now, then return. */
  once?: boolean;
  /** How often to look again for leases that ran out (ms, default 5 000): a dead driver announces nothing. */
  scanMs?: number;
  /** Told about each run taken: how its drive ended, or why it failed. */
  onRun?: (run: RunRecord, result: RunOutcome | Error) => void;
};

/**
 * Drives, one at a time, the runs that need a driver: running ones whose lease ran out (their driver
 * died) and paused ones with decisions submitted. Of several workers racing for one run, one takes
 * it; the others go on to the next. Returns when `signal` aborts (after the current run's step).
 */
export async function workRuns(runs: Runs, opts: WorkOptions): Promise<void> {
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  const off = await runs.watch(poke);
  opts.signal.addEventListener("abort", poke);
  try {
    while (!opts.signal.aborted) {
      for (const run of await runs.stores.runs.resumableRuns()) {
        if (opts.signal.aborted) break;
        let result: RunOutcome | Error;
        try {
          const handle = await runs.resume(run.id, undefined, { signal: opts.signal });
          result = await handle.done;
        } catch (error) {
          if (error instanceof RunBusyError) continue;
          result = error instanceof Error ? error : new Error(String(error));
        }
        opts.onRun?.(run, result);
      }
      if (opts.once || opts.signal.aborted) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, opts.scanMs ?? 5_000).unref();
      });
      wake = undefined;
    }
  } finally {
    off();
    opts.signal.removeEventListener("abort", poke);
  }
}
