import type { AgentEvent } from "../core/events.js";
import { RunLeaseLostError, type RunLease, type RunStore } from "../stores/run-store.js";

export type RunLogWriterOptions = {
  store: RunStore;
  lease: RunLease;
  /** The state to resume from, as it stands now: read when a write that carries the checkpoint starts. */
  checkpoint: () => unknown;
  /** Every event once it is written, with its sequence number, in order. */
  onWritten: (event: AgentEvent, seq: number) => void;
  /** Another process took the run over: nothing more is written. */
  onLeaseLost: (error: RunLeaseLostError) => void;
  /** A write that failed otherwise (the store busy): its events are lost, later ones are still written. */
  onWriteFailed: (error: unknown) => void;
};

/**
 * Writes a drive's events and checkpoints to the run store in group commits: the first event is written
 * at once, and the events that arrive while a write is in flight gather and go in the next write, with
 * the checkpoint when one is due, in one commit. A step's events and its checkpoint so cost one or two
 * commits instead of one each, and no event waits for a timer.
 */
export class RunLogWriter {
  readonly #opts: RunLogWriterOptions;
  #pending: AgentEvent[] = [];
  #checkpointDue = false;
  /** The failure of the last write that carried a checkpoint, until one succeeds: `flush(true)` reports it. */
  #checkpointFailure: unknown;
  #writing: Promise<void> | undefined;
  #lost = false;

  constructor(opts: RunLogWriterOptions) {
    this.#opts = opts;
  }

  /** Queues the event; `checkpoint` makes the write that takes it carry the checkpoint too. */
  add(event: AgentEvent, checkpoint = false): void {
    if (this.#lost) return;
    this.#pending.push(event);
    if (checkpoint) this.#checkpointDue = true;
    this.#start();
  }

  /**
   * Resolves once everything queued is written; with `checkpoint`, after a checkpoint taken now is
   * written too, and rejects when that write failed.
   */
  async flush(checkpoint = false): Promise<void> {
    if (checkpoint && !this.#lost) this.#checkpointDue = true;
    this.#start();
    while (this.#writing) await this.#writing;
    if (!checkpoint || this.#checkpointFailure === undefined) return;
    const failure = this.#checkpointFailure;
    this.#checkpointFailure = undefined;
    throw failure;
  }

  #start(): void {
    if (this.#writing) return;
    // The write starts once the current turn of the event loop is over, so what the session emits together
    // (a turn's end and the next model call's start) goes in together.
    this.#writing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#drain()).finally(() => {
      this.#writing = undefined;
      // Queued after the drain's last look, before it ended: the next write takes it.
      if (this.#due()) this.#start();
    });
  }

  #due(): boolean {
    return !this.#lost && (this.#pending.length > 0 || this.#checkpointDue);
  }

  async #drain(): Promise<void> {
    const { store, lease } = this.#opts;
    while (this.#due()) {
      const events = this.#pending;
      this.#pending = [];
      const checkpoint = this.#checkpointDue ? { state: this.#opts.checkpoint() } : undefined;
      this.#checkpointDue = false;
      try {
        const last = await store.appendEvents(lease, events, checkpoint);
        if (checkpoint) this.#checkpointFailure = undefined;
        events.forEach((event, i) => this.#opts.onWritten(event, last - events.length + 1 + i));
      } catch (error) {
        if (error instanceof RunLeaseLostError) {
          this.#lost = true;
          this.#pending = [];
          this.#opts.onLeaseLost(error);
        } else {
          if (checkpoint) this.#checkpointFailure = error;
          this.#opts.onWriteFailed(error);
        }
      }
    }
  }
}
