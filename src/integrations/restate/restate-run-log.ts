import type { AgentEvent } from "../../core/events.js";
import { RunLeaseLostError, type NewRun, type RunLease, type RunStatus, type RunStore } from "../../stores/run-store.js";

/**
 * Restate drives the run until its invocation ends. The store's lease only fences earlier attempts
 * of the invocation and keeps the built-in drivers (`stepwise worker`, the viewer) off the run, so it
 * lasts as long as a run can wait for a person; it is let go when the invocation ends.
 */
const RESTATE_LEASE_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * A Restate run's record in a Stepwise run store, where the viewer and the CLI read it. Each attempt
 * of the invocation opens it anew and takes the lease over from the attempt before (whose writes are
 * then refused). A replay emits the run's events again from the first: the ones the store has
 * already are skipped by count, so the log holds each event once, in order.
 */
export class RestateRunLog {
  readonly #store: RunStore;
  readonly #lease: RunLease;
  /** Events of earlier attempts already in the store: the first this many emitted are replays. */
  readonly #stored: number;
  #emitted = 0;
  #lost = false;

  private constructor(store: RunStore, lease: RunLease, stored: number) {
    this.#store = store;
    this.#lease = lease;
    this.#stored = stored;
  }

  /** Creates the run, or takes it over from an earlier attempt of the same invocation (`holder`). */
  static async open(store: RunStore, run: NewRun, settings: unknown, holder: string): Promise<RestateRunLog> {
    if (!(await store.getRun(run.id))) return new RestateRunLog(store, await store.createRun(run, settings, holder, RESTATE_LEASE_MS), 0);
    const lease = await store.acquireLease(run.id, holder, RESTATE_LEASE_MS, holder);
    return new RestateRunLog(store, lease, await lastSeq(store, run.id));
  }

  /** True once a later attempt took the run over: this one writes nothing more. */
  get lost(): boolean {
    return this.#lost;
  }

  /** True while the events emitted are ones the store has from an earlier attempt (the journal is being replayed). */
  get replaying(): boolean {
    return this.#emitted < this.#stored;
  }

  /** Appends the event unless the store has it from an earlier attempt. */
  async append(event: AgentEvent): Promise<void> {
    this.#emitted++;
    if (this.#emitted <= this.#stored) return;
    await this.#write(() => this.#store.appendEvents(this.#lease, [event]));
  }

  async update(change: { status?: RunStatus; answer?: string | null }): Promise<void> {
    await this.#write(() => this.#store.updateRun(this.#lease, change));
  }

  /** The invocation ended: the run is free again (for nobody to drive: it is over). */
  async release(): Promise<void> {
    if (!this.#lost) await this.#store.releaseLease(this.#lease);
  }

  async #write(write: () => Promise<unknown>): Promise<void> {
    if (this.#lost) return;
    try {
      await write();
    } catch (error) {
      if (!(error instanceof RunLeaseLostError)) throw error;
      this.#lost = true;
    }
  }
}

/**
 * The highest sequence number of the run's events (the store numbers them 1, 2, 3…, so it is how many
 * there are), found with one-event reads, doubling then halving, so that a long log is never read whole.
 */
async function lastSeq(store: RunStore, runId: string): Promise<number> {
  const reaches = async (seq: number) => (await store.events(runId, seq - 1, 1)).length > 0;
  let below = 0;
  let above = 1;
  while (await reaches(above)) {
    below = above;
    above *= 2;
  }
  while (above - below > 1) {
    const middle = Math.floor((below + above) / 2);
    if (await reaches(middle)) below = middle;
    else above = middle;
  }
  return below;
}
