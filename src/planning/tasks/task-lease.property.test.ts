import fc from "fast-check";
import { expect, it } from "vitest";
import { MemoryTaskStore } from "./memory-task-store.js";
import { TaskLeaseError, type TaskLease } from "./task-lease.js";

type Command =
  | { kind: "claim"; worker: number; leaseMs: number }
  | { kind: "renew"; lease: number }
  | { kind: "complete"; lease: number }
  | { kind: "reset"; task: number }
  | { kind: "tick"; ms: number };

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("claim" as const), worker: fc.nat(3), leaseMs: fc.integer({ min: 1, max: 50 }) }),
  fc.record({ kind: fc.constant("renew" as const), lease: fc.nat(20) }),
  fc.record({ kind: fc.constant("complete" as const), lease: fc.nat(20) }),
  fc.record({ kind: fc.constant("reset" as const), task: fc.integer({ min: 1, max: 5 }) }),
  fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 0, max: 40 }) }),
);

// Workers claim, renew, complete and lose leases on a small board while a fake clock moves. Whatever
// the order: no two live leases on one task, a write is accepted exactly when its lease is the task's
// current one and unexpired, and each task is completed at most once through a lease.
it("leases: one live holder per task, fencing refuses exactly the stale writes, no task completed twice", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(command, { maxLength: 60 }), async (commands) => {
      let now = 1_000;
      const store = new MemoryTaskStore({ now: () => now });
      for (let i = 1; i <= 5; i++) await store.create({ subject: `t${i}`, description: "" });
      const leases: TaskLease[] = [];
      // What the model expects: the lease each task is held by, and until when.
      const current = new Map<string, { token: number; until: number }>();
      const completions = new Map<string, number>();
      const live = (lease: TaskLease) => {
        const held = current.get(lease.taskId);
        return held !== undefined && held.token === lease.token && held.until > now;
      };
      for (const step of commands) {
        if (step.kind === "tick") now += step.ms;
        else if (step.kind === "claim") {
          const { task, expired } = await store.claimNext(`w${step.worker}`, { leaseMs: step.leaseMs });
          for (const lease of expired) {
            expect(live(lease)).toBe(false);
            current.delete(lease.taskId);
          }
          if (task) {
            expect(current.has(task.id) && (current.get(task.id)?.until ?? 0) > now).toBe(false);
            current.set(task.id, { token: task.lease.token, until: now + step.leaseMs });
            leases.push(task.lease);
          }
        } else if (step.kind === "reset") {
          await store.update(String(step.task), { state: "pending", owner: null });
          current.delete(String(step.task));
        } else {
          const lease = leases[step.lease % Math.max(1, leases.length)];
          if (!lease) continue;
          const expected = live(lease);
          const write =
            step.kind === "renew"
              ? store.renewLease(lease, 30).then(() => current.set(lease.taskId, { token: lease.token, until: now + 30 }))
              : store.update(lease.taskId, { state: "completed" }, { lease }).then(() => {
                  current.delete(lease.taskId);
                  completions.set(lease.taskId, (completions.get(lease.taskId) ?? 0) + 1);
                });
          if (expected) await write;
          else await expect(write).rejects.toBeInstanceOf(TaskLeaseError);
        }
        expect(await store.activeLeases()).toBe([...current.values()].filter((held) => held.until > now).length);
      }
      // A task completed and then reset can be claimed and completed again; without a reset, never twice.
      const resets = new Set(commands.filter((c) => c.kind === "reset").map((c) => String(c.task)));
      for (const [id, n] of completions) if (!resets.has(id)) expect(n).toBe(1);
    }),
    { numRuns: 300 },
  );
});
