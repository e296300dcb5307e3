/** One write of a batch: whose it is (at most one per key in a batch) and what it writes. */
export type BatchedWrite<I> = { key: string; input: I };

export type WriteBatcherOptions<I, O> = {
  /** Writes a batch in one statement; the result holds an output for each write that took effect. */
  send: (writes: readonly BatchedWrite<I>[]) => Promise<Map<string, O>>;
  /** How many batches may be in flight at once: the writes that arrive while they all are wait and go together. */
  maxInFlight: number;
  /** The most writes one batch takes. */
  maxBatch: number;
  /**
   * Whether a batch that failed with this error surely wrote nothing, so that each of its writes may be
   * tried alone (a statement the database refused); a lost connection may have committed it.
   */
  nothingWritten: (error: unknown) => boolean;
};

type Waiting<I, O> = BatchedWrite<I> & { resolve: (output: O | undefined) => void; reject: (error: unknown) => void };

/**
 * Group commit across callers: writes that arrive while the database is busy with earlier ones share a
 * statement (and a commit) instead of queueing for a connection each. A write that arrives when a slot
 * is free waits only for the current turn of the event loop, so what arrives together goes together.
 * Writes with the same key keep their order: a batch takes at most one of them. When the database refuses
 * a batch, each of its writes is tried alone, so one bad write fails only its own caller.
 */
export class WriteBatcher<I, O> {
  readonly #opts: WriteBatcherOptions<I, O>;
  #waiting: Waiting<I, O>[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(opts: WriteBatcherOptions<I, O>) {
    this.#opts = opts;
  }

  /** Resolves with the write's output once its batch committed, or with undefined when it took no effect. */
  write(key: string, input: I): Promise<O | undefined> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ key, input, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#opts.maxInFlight || this.#waiting.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#sendNext();
    });
  }

  async #sendNext(): Promise<void> {
    const batch = this.#takeBatch();
    this.#inFlight++;
    try {
      await this.#send(batch);
    } finally {
      this.#inFlight--;
      this.#schedule();
    }
  }

  /** The oldest waiting writes, one per key, at most maxBatch; the rest keep waiting in order. */
  #takeBatch(): Waiting<I, O>[] {
    const batch: Waiting<I, O>[] = [];
    const keys = new Set<string>();
    const rest: Waiting<I, O>[] = [];
    for (const write of this.#waiting) {
      if (batch.length < this.#opts.maxBatch && !keys.has(write.key)) {
        keys.add(write.key);
        batch.push(write);
      } else rest.push(write);
    }
    this.#waiting = rest;
    return batch;
  }

  /** Sends the batch; a refused batch of several is split into batches of one, which are not split again. */
  async #send(batch: readonly Waiting<I, O>[]): Promise<void> {
    let outputs: Map<string, O>;
    try {
      outputs = await this.#opts.send(batch.map(({ key, input }) => ({ key, input })));
    } catch (error) {
      if (batch.length > 1 && this.#opts.nothingWritten(error)) {
        await Promise.all(batch.map((write) => this.#send([write])));
      } else batch.forEach((write) => write.reject(error));
      return;
    }
    for (const write of batch) write.resolve(outputs.get(write.key));
  }
}
