import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { scriptedModel } from "../../models/scripted.js";
import { MemoryPlanStore } from "./memory-plan-store.js";
import type { PlanData, PlanInput } from "./plan.js";
import { PlanNotebook } from "./plan-notebook.js";
import type { PlanStore, PlanStoreState } from "./plan-store.js";

/** A store in memory with one write that fails (the disk was full for a moment); with `atomic`, it offers commit and persists. */
class FailingStorage implements PlanStore {
  readonly #atomic: boolean;
  readonly #inner = new MemoryPlanStore();
  #current: string | null | undefined;
  /** How many writes succeed before the one that fails; undefined for none failing. */
  #writesBeforeFailure: number | undefined;
  readonly commit?: (plans: PlanData[], currentId: string | null) => Promise<void>;
  readonly currentPlanId?: () => Promise<string | null | undefined>;

  constructor(atomic: boolean) {
    this.#atomic = atomic;
    if (atomic) {
      this.commit = async (plans, currentId) => {
        this.#write();
        for (const plan of plans) await this.#inner.add(plan);
        this.#current = currentId;
      };
      this.currentPlanId = async () => this.#current;
    }
  }

  failWrite(after = 0): void {
    this.#writesBeforeFailure = after;
  }

  async add(plan: PlanData): Promise<void> {
    this.#write();
    await this.#inner.add(plan);
  }

  #write(): void {
    if (this.#writesBeforeFailure === undefined) return;
    if (this.#writesBeforeFailure-- > 0) return;
    this.#writesBeforeFailure = undefined;
    throw new Error("disk full");
  }

  get(id: string) {
    return this.#inner.get(id);
  }

  list() {
    return this.#inner.list();
  }

  delete(id: string) {
    return this.#inner.delete(id);
  }

  saveState(): PlanStoreState {
    return this.#atomic ? { kind: "reference", store: "failing", scope: "default" } : this.#inner.saveState();
  }

  loadState(state: PlanStoreState): void {
    this.#inner.loadState(state);
  }
}

const trip: PlanInput = {
  name: "Trip",
  description: "Plan a trip.",
  expectedOutcome: "Booked.",
  subtasks: [
    { name: "Flights", description: "Book flights.", expectedOutcome: "Tickets." },
    { name: "Hotel", description: "Book a hotel.", expectedOutcome: "A booking." },
  ],
};

/** A notebook with a trip plan (first subtask in progress) and an archived one, then a storage that fails. */
async function notebookWithFailingStorage(atomic: boolean) {
  const storage = new FailingStorage(atomic);
  const notebook = new PlanNotebook({ storage });
  const archived = await notebook.createPlan({ ...trip, name: "Old trip" });
  await notebook.createPlan(trip);
  await notebook.updateSubtaskState(0, "in_progress");
  const snapshot = async () => ({ current: notebook.currentPlan?.toJSON() ?? null, stored: await storage.list(), hint: notebook.hint() });
  const before = await snapshot();
  return { notebook, storage, archived, snapshot, before };
}

describe("a plan change the storage fails to save", () => {
  for (const atomic of [true, false]) {
    const kind = atomic ? "an atomic storage (commit)" : "a plan-by-plan storage (add)";

    it(`leaves the notebook and ${kind} as they were, for every kind of change`, async () => {
      const { notebook, storage, archived, snapshot, before } = await notebookWithFailingStorage(atomic);
      let fired = 0;
      notebook.registerPlanChangeHook("count", () => void fired++);
      // The changes that store two plans (the one set aside, the new current) fail on the second
      // write, so a plan-by-plan storage has to put the first one back.
      const changes: [() => Promise<unknown>, number][] = [
        [() => notebook.createPlan({ ...trip, name: "New trip" }), 1],
        [() => notebook.updateSubtaskState(0, "todo"), 0],
        [() => notebook.finishSubtask(0, "Tickets"), 0],
        [() => notebook.reviseCurrentPlan(2, "add", { name: "Car", description: "Rent a car.", expectedOutcome: "A car." }), 0],
        [() => notebook.reviseCurrentPlan(1, "revise", { name: "Hostel" }), 0],
        [() => notebook.reviseCurrentPlan(1, "delete"), 0],
        [() => notebook.finishPlan("abandoned", "Cancelled."), 0],
        [() => notebook.recoverHistoricalPlan(archived.id), 1],
      ];
      for (const [change, writesBeforeFailure] of changes) {
        storage.failWrite(atomic ? 0 : writesBeforeFailure);
        await expect(change()).rejects.toThrow(/^The change was not saved, so the plan is as it was before this call: storing it failed \(disk full\)/);
        expect(await snapshot()).toEqual(before);
      }
      expect(fired).toBe(0);
    });
  }

  it("tells the model the change was not saved, and its next request still shows the plan as it was", async () => {
    const { notebook, storage } = await notebookWithFailingStorage(true);
    storage.failWrite();
    const model = scriptedModel([
      { toolCalls: [{ name: "finish_subtask", arguments: { subtask_idx: 0, subtask_outcome: "Tickets" } }] },
      "I could not save that.",
    ]);
    const agent = new Agent({ model, plugins: [notebook] });
    const events: AgentEvent[] = [];
    agent.on((event) => events.push(event));
    await agent.run("Go on.");
    const result = model.requests[1]?.messages.find((message) => message.role === "tool");
    expect(result?.content).toContain("The change was not saved");
    expect(result?.content).toContain("disk full");
    expect(model.requests[1]?.messages.at(-1)?.content).toContain("[WIP]Flights");
    expect(events.filter((event) => event.type === "plan-updated" || event.type === "unit-end")).toEqual([]);

    await notebook.finishSubtask(0, "Tickets");
    expect(notebook.currentPlan?.subtasks.map((subtask) => subtask.state)).toEqual(["done", "in_progress"]);
  });
});
