import type { LoggedEvent, RunStore } from "../stores/run-store.js";

export type FollowOptions = {
  /** Start after this sequence number (default 0: from the first event). */
  after?: number;
  /** Keep waiting for events after the run stopped (a paused run may be resumed elsewhere) until `signal` aborts. */
  follow?: boolean;
  signal?: AbortSignal;
};

/**
 * One subscription to the store's change notices, shared by every follower in this process: with
 * PostgreSQL that is one listening connection, however many browsers watch.
 */
export class RunChanges {
  readonly #store: RunStore;
  readonly #listeners = new Set<(runId: string) => void>();
  #stop: Promise<() => Promise<void>> | undefined;

  constructor(store: RunStore) {
    this.#store = store;
  }

  async on(listener: (runId: string) => void): Promise<() => void> {
    this.#listeners.add(listener);
    this.#stop ??= this.#store.subscribe((runId) => {
      for (const each of this.#listeners) each(runId);
    });
    try {
      await this.#stop;
    } catch (error) {
      this.#listeners.delete(listener);
      this.#stop = undefined;
      throw error;
    }
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    const stop = this.#stop;
    this.#stop = undefined;
    this.#listeners.clear();
    if (stop) await (await stop)();
  }
}

const PAGE = 500;

/** A run's recorded events after `after`, oldest first, read a page at a time. */
export async function* loggedEvents(store: RunStore, runId: string, after = 0): AsyncGenerator<LoggedEvent> {
  for (let page = await store.events(runId, after, PAGE); page.length > 0; page = await store.events(runId, after, PAGE)) {
    for (const logged of page) {
      after = logged.seq;
      yield logged;
    }
  }
}

const STOPPED = new Set(["final", "no-answer", "failed", "aborted", "awaiting-user", "max-steps"]);

/**
 * A run's events, backlog first, then live as they are recorded (by this process or any other): each
 * change notice wakes the follower, which reads what is new. Without `follow` it ends once the run
 * has stopped and every event is read.
 */
export async function* followRunEvents(store: RunStore, changes: RunChanges, runId: string, opts: FollowOptions = {}): AsyncGenerator<LoggedEvent> {
  let after = opts.after ?? 0;
  let dirty = true;
  let wake: (() => void) | undefined;
  const poke = () => {
    dirty = true;
    wake?.();
  };
  const off = await changes.on((changed) => {
    if (changed === runId || changed === "*") poke();
  });
  opts.signal?.addEventListener("abort", poke);
  const drain = async function* () {
    for await (const logged of loggedEvents(store, runId, after)) {
      after = logged.seq;
      yield logged;
    }
  };
  try {
    while (!opts.signal?.aborted) {
      dirty = false;
      yield* drain();
      if (!opts.follow) {
        const run = await store.getRun(runId);
        if (!run || STOPPED.has(run.status)) {
          // Its last events were recorded before its status changed: read them, then stop.
          yield* drain();
          return;
        }
      }
      if (!dirty && !opts.signal?.aborted) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  } finally {
    off();
    opts.signal?.removeEventListener("abort", poke);
  }
}
