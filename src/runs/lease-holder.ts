import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** A name for this process in leases: `host:pid:random`, so a process on the same host can tell whether the holder still lives. */
export function leaseHolderName(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * True when `holder` names a process on this host that is gone (killed, crashed): its lease need not
 * be waited out. Holders from other hosts, or named otherwise, are never presumed dead.
 */
export function holderIsDeadHere(holder: string): boolean {
  const parts = holder.split(":");
  const pid = Number(parts.at(-2));
  if (parts.length < 3 || parts.slice(0, -2).join(":") !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: it lives, as another user's process.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
