import { holderIsDeadHere, leaseHolderName } from "../runs/lease-holder.js";
import type { StoreSet } from "../runs/store-set.js";

const LEASE_MS = 10_000;

/**
 * Marks "aborted" the runs that an eval killed mid-trial left "running": their trials are not
 * recorded and run again afresh, so nothing should ever drive these runs on (a `stepwise worker` on
 * the eval's store would otherwise take them over once their leases ran out). Runs whose driver may
 * still live (another process on another host, or alive here) are left alone.
 */
export async function abortOrphanedTrials(stores: StoreSet, recorded: ReadonlySet<string>): Promise<number> {
  const holder = leaseHolderName();
  let aborted = 0;
  for (const run of await stores.runs.listRuns(Number.MAX_SAFE_INTEGER)) {
    if (run.status !== "running" || recorded.has(run.id)) continue;
    const driver = run.lease?.holder;
    if (driver !== undefined && !holderIsDeadHere(driver)) continue;
    const lease = await stores.runs.acquireLease(run.id, holder, LEASE_MS, driver).catch(() => undefined);
    if (!lease) continue;
    await stores.runs.updateRun(lease, { status: "aborted" });
    await stores.runs.releaseLease(lease);
    aborted++;
  }
  return aborted;
}
