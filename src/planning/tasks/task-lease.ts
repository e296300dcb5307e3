import { nextClaimable } from "./task-graph.js";
import { TaskRuleError, type Task } from "./task.js";

/**
 * A claim on a task that lasts until `expiresAt` unless its holder renews it (graphile-worker and
 * pg-boss work this way): a worker that dies stops renewing, its lease runs out, and the task goes
 * back to pending for another worker. `token` numbers the claims of a task and never repeats for it,
 * so a write carrying an old lease can be told from one carrying the current lease (fencing).
 */
export type TaskLease = {
  taskId: string;
  owner: string;
  token: number;
  /** ISO time by the store's clock (PostgreSQL's now() for a shared board). */
  expiresAt: string;
};

/** A task as claimNext hands it out, with the lease that holds it. */
export type ClaimedTask = Task & { lease: TaskLease };

/** What one atomic claim step did: the task it claimed, and the expired leases it returned to pending first. */
export type TaskClaim = { task: ClaimedTask | undefined; expired: TaskLease[] };

export type ClaimOptions = {
  /** How long the claim lasts unless renewed; DEFAULT_LEASE_MS when not given. */
  leaseMs?: number;
};

/** A write on behalf of a lease holder: refused unless `lease` is still the task's current, unexpired lease. */
export type FencedWrite = { lease?: TaskLease };

/** Long enough that a claim made by hand (no heartbeat) survives ordinary work; runWorkerPool renews it. */
export const DEFAULT_LEASE_MS = 30_000;

/** The longest lease accepted: a day. A dead worker's task should come back the same day. */
const MAX_LEASE_MS = 86_400_000;

/** A lease duration as the stores accept it: a whole number of milliseconds, 1 ms to a day. */
export function leaseDuration(leaseMs: number | undefined): number {
  const ms = leaseMs ?? DEFAULT_LEASE_MS;
  if (!Number.isInteger(ms) || ms < 1 || ms > MAX_LEASE_MS) {
    throw new TaskRuleError(`A lease lasts a whole number of milliseconds from 1 to ${MAX_LEASE_MS}; got ${String(leaseMs)}.`);
  }
  return ms;
}

/**
 * The holder of `lease` no longer holds the task: the lease expired (and the task may have gone to
 * another worker), or the task was completed, reset or deleted by someone else. The write is refused
 * so that a task is never completed twice.
 */
export class TaskLeaseError extends TaskRuleError {
  override name = "TaskLeaseError";
  readonly lease: TaskLease;

  constructor(lease: TaskLease, now: string) {
    super(
      `Refused: ${lease.owner}'s lease on task ${lease.taskId} (claim ${lease.token}, until ${lease.expiresAt}) is no longer held at ${now}; ` +
        "it expired or the task was changed by someone else, so the task may be with another worker. Claim a task again instead of writing to this one.",
    );
    this.lease = lease;
  }
}

/** Whether a task's stored lease state matches `lease` and is still live at `nowMs`. */
export function holdsLease(current: { state: Task["state"]; token: number; expiresAtMs: number | null }, lease: TaskLease, nowMs: number): boolean {
  return current.state === "in_progress" && current.token === lease.token && current.expiresAtMs !== null && current.expiresAtMs > nowMs;
}

/** What a store keeps per task to run leases: the number of its last claim and, while that lease is live, when it ends. */
export type LeaseState = { token: number; expiresAtMs: number | null };

const NO_LEASE: LeaseState = { token: 0, expiresAtMs: null };

/** The lease `state` describes on `task`. */
export function leaseOf(task: Task, state: LeaseState): TaskLease {
  return { taskId: task.id, owner: task.owner ?? "", token: state.token, expiresAt: new Date(state.expiresAtMs ?? 0).toISOString() };
}

/**
 * One claim step for a store that holds the board in this process's memory (the memory store; the
 * SQLite store takes the same step in SQL): every task whose lease ran out goes back to pending, unowned, and
 * then the lowest free task is claimed with a new lease. Changes `tasks` and `leases` in place and
 * returns what happened, with the ids of the tasks whose rows changed.
 */
export function claimStep(
  tasks: Map<string, Task>,
  leases: Map<string, LeaseState>,
  owner: string,
  nowMs: number,
  leaseMs: number,
  nextToken: () => number,
): TaskClaim & { changed: string[] } {
  const expired: TaskLease[] = [];
  for (const task of tasks.values()) {
    const state = leases.get(task.id);
    if (task.state !== "in_progress" || !state || state.expiresAtMs === null || state.expiresAtMs > nowMs) continue;
    expired.push(leaseOf(task, state));
    task.state = "pending";
    task.owner = null;
    leases.set(task.id, { token: state.token, expiresAtMs: null });
  }
  const changed = expired.map((lease) => lease.taskId);
  const task = nextClaimable(tasks, owner);
  if (!task) return { task: undefined, expired, changed };
  task.state = "in_progress";
  task.owner = owner;
  const state = { token: nextToken(), expiresAtMs: nowMs + leaseMs };
  leases.set(task.id, state);
  if (!changed.includes(task.id)) changed.push(task.id);
  return { task: { ...structuredClone(task), lease: leaseOf(task, state) }, expired, changed };
}

/** Refuses (TaskLeaseError) unless `lease` is the current, unexpired lease of `task`. */
export function checkFence(task: Task, state: LeaseState | undefined, lease: TaskLease, nowMs: number): void {
  const current = state ?? NO_LEASE;
  if (!holdsLease({ state: task.state, token: current.token, expiresAtMs: current.expiresAtMs }, lease, nowMs)) {
    throw new TaskLeaseError(lease, new Date(nowMs).toISOString());
  }
}

/** A task that stopped being in progress holds no lease any more; its claim number stays, so it never repeats. */
export function settleLease(task: Task, state: LeaseState | undefined): LeaseState {
  const current = state ?? NO_LEASE;
  return task.state === "in_progress" ? current : { token: current.token, expiresAtMs: null };
}

/** Extends `lease` by `leaseMs` from `nowMs`, refusing (TaskLeaseError) when it is no longer held. */
export function renewStep(task: Task | undefined, state: LeaseState | undefined, lease: TaskLease, nowMs: number, leaseMs: number): { state: LeaseState; lease: TaskLease } {
  if (!task) throw new TaskLeaseError(lease, new Date(nowMs).toISOString());
  checkFence(task, state, lease, nowMs);
  const renewed = { token: lease.token, expiresAtMs: nowMs + leaseMs };
  return { state: renewed, lease: { ...lease, expiresAt: new Date(renewed.expiresAtMs).toISOString() } };
}

/** How many tasks hold a live lease at `nowMs`. */
export function liveLeases(tasks: Iterable<Task>, leases: ReadonlyMap<string, LeaseState>, nowMs: number): number {
  let count = 0;
  for (const task of tasks) {
    const state = leases.get(task.id);
    if (task.state === "in_progress" && state?.expiresAtMs != null && state.expiresAtMs > nowMs) count++;
  }
  return count;
}
