import type { Context, RunAction, RunOptions } from "@restatedev/restate-sdk";

/**
 * An invocation's journaled steps (`ctx.run`), taken one at a time in the order they are asked for.
 * The SDK fails an invocation that awaits two steps at once ("awaitNext already pending",
 * restatedev/sdk-typescript#743, 1.14.4 and later), and an agent runs a turn's tool calls at once:
 * queued here, they run one after the other instead, and the journal's order is the order of the calls.
 * A step must not take another inside it (Restate does not nest them either): it would wait for itself.
 */
export class JournalSteps {
  readonly ctx: Context;
  #last: Promise<unknown> = Promise.resolve();

  constructor(ctx: Context) {
    this.ctx = ctx;
  }

  run<T>(name: string, action: RunAction<T>, opts: RunOptions<T> = {}): Promise<T> {
    const step = this.#last.then(() => this.ctx.run(name, action, opts));
    this.#last = step.catch(() => undefined);
    return step;
  }
}
