import { TaskLeaseError, type TaskLease } from "../../planning/tasks/task-lease.js";
import type { CompleteAndClaim, TaskStore, TaskStoreState } from "../../planning/tasks/task-store.js";
import { TaskRuleError, type Task } from "../../planning/tasks/task.js";
import type { JournalSteps } from "./journal-steps.js";

/** A broken board rule, as the journal keeps it: a value, since a replay must refuse the same way. */
type JournaledRefusal = { kind: "rule"; message: string } | { kind: "lease"; message: string; lease: TaskLease };
type Journaled<T> = { value: T } | { refused: JournaledRefusal };

/**
 * The task board's store with every read and write a journaled step (`ctx.run`): a replay takes each
 * answer from the journal, so a task the run created is not created again, and the board the replay
 * sees (in its hints, in the plan it publishes) is the board as the run saw it then, not as it is now.
 * A broken rule (an unknown id, a cycle, a lost lease) is journaled as an outcome, so the replay
 * refuses the same call the same way; any other failure (the database is down) is retried by Restate.
 */
export function journaledTaskStore(steps: JournalSteps, store: TaskStore): TaskStore {
  const step = async <T>(name: string, operation: () => Promise<T>): Promise<T> => {
    const outcome = await steps.run<Journaled<T>>(`board ${name}`, async () => {
      try {
        return { value: await operation() };
      } catch (error) {
        if (error instanceof TaskRuleError) return { refused: refusal(error) };
        throw error;
      }
    });
    if ("refused" in outcome) throw refusalError(outcome.refused);
    return outcome.value;
  };
  return {
    get boardId() {
      return store.boardId;
    },
    list: () => step("list", () => store.list()),
    // ctx.run keeps JSON, where an absent task would become null.
    get: async (id) => (await step("get", async () => (await store.get(id)) ?? null)) ?? undefined,
    counts: () => step("counts", () => store.counts()),
    ...(store.listView ? { listView: (filter) => step("list view", () => store.listView!(filter)) } : {}),
    ...(store.getMany ? { getMany: (ids) => step("get many", () => store.getMany!(ids)) } : {}),
    ...(store.withExternalId ? { withExternalId: (externalId) => step("with external id", () => store.withExternalId!(externalId)) } : {}),
    create: (draft, opts) => step("create", () => store.create(draft, opts)),
    reserveIds: (count) => step("reserve ids", () => store.reserveIds(count)),
    update: (id, change, opts) => step("update", () => store.update(id, change, opts)),
    remove: (id) => step("remove", () => store.remove(id)),
    claimNext: (owner, opts) => step("claim", () => store.claimNext(owner, opts)),
    ...(store.completeAndClaim
      ? {
          completeAndClaim: async (lease, metadata, owner, opts): Promise<CompleteAndClaim> => {
            // A refused completion is part of the answer, not a throw: journaled as the refusal it is.
            const { completed, claim } = await step("complete and claim", async () => {
              const done = await store.completeAndClaim!(lease, metadata, owner, opts);
              return { completed: done.completed instanceof TaskLeaseError ? refusal(done.completed) : done.completed, claim: done.claim };
            });
            return { completed: "kind" in completed ? (refusalError(completed) as TaskLeaseError) : (completed as Task), claim };
          },
        }
      : {}),
    renewLease: (lease, leaseMs) => step("renew lease", () => store.renewLease(lease, leaseMs)),
    activeLeases: () => step("active leases", () => store.activeLeases()),
    replaceAll: (tasks) => step("replace all", () => store.replaceAll(tasks)),
    // What the plugin saves in the agent's state: a reference to the board, the same on every replay.
    saveState: (): TaskStoreState => store.saveState(),
    loadState: (state) => store.loadState(state),
    close: () => store.close(),
  };
}

function refusal(error: TaskRuleError): JournaledRefusal {
  return error instanceof TaskLeaseError ? { kind: "lease", message: error.message, lease: error.lease } : { kind: "rule", message: error.message };
}

/** The refusal as the error the store threw, its message as it was. */
function refusalError(refused: JournaledRefusal): TaskRuleError {
  const error = refused.kind === "lease" ? new TaskLeaseError(refused.lease, "") : new TaskRuleError();
  error.message = refused.message;
  return error;
}
