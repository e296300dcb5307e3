import type { AgentEvent } from "../core/events.js";

type TextDelta = Extract<AgentEvent, { type: "text-delta" }>;

/** A batch of streamed text is passed on once it holds this many characters… */
export const TEXT_BATCH_CHARS = 4_096;
/** …or spans this long (ms, by the deltas' own times; the observer also passes on what waits this long): a live reader still sees the text as it comes. */
export const TEXT_BATCH_MS = 200;

/**
 * Gathers text deltas into fewer, longer ones, so that a run's log keeps a model's streamed text in
 * a row per batch instead of a row per delta (a provider may send one per token, or a hostile one
 * hundreds of thousands). Each stream (run, agent, step) is batched apart; a batch goes on once it is
 * full or old enough, and every open batch before any other event and at `flush`, so the order of
 * events is kept and the texts passed on add up to exactly the text streamed.
 */
export class TextDeltaBatches {
  readonly #pass: (event: AgentEvent) => Promise<void>;
  readonly #open = new Map<string, TextDelta>();

  constructor(pass: (event: AgentEvent) => Promise<void>) {
    this.#pass = pass;
  }

  async add(event: AgentEvent): Promise<void> {
    if (event.type !== "text-delta") {
      await this.flush();
      return this.#pass(event);
    }
    const key = `${event.runId ?? ""}\n${event.agent}\n${event.step}`;
    const batch = this.#open.get(key);
    if (batch) batch.text += event.text;
    else this.#open.set(key, { ...event });
    const open = batch ?? (this.#open.get(key) as TextDelta);
    if (open.text.length < TEXT_BATCH_CHARS && event.time - open.time < TEXT_BATCH_MS) return;
    this.#open.delete(key);
    await this.#pass(open);
  }

  /** True while some text is gathered and not passed on yet. */
  get open(): boolean {
    return this.#open.size > 0;
  }

  /** Passes on every open batch, oldest first. */
  async flush(): Promise<void> {
    const open = [...this.#open.values()];
    this.#open.clear();
    for (const batch of open) await this.#pass(batch);
  }
}
