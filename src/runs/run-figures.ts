import { estimateCostUsd } from "../models/model-prices.js";
import type { RunRecord, RunStore } from "../stores/run-store.js";

/** What a run took, as a run list shows it: its time, model calls, tokens and estimated cost. */
export type RunFigures = {
  /** From its start to its last change (time spent waiting for approval included). */
  durationMs: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from a provider's prompt cache. */
  cachedInputTokens: number;
  /** Estimated at list prices; absent when no call's model has a known price. */
  costUsd?: number;
  /** Calls of models without a known price, left out of `costUsd`. */
  unpricedCalls: number;
};

/** The figures of each run, summed by the store from the runs' logged model calls. */
export async function runFigures(store: RunStore, runs: readonly RunRecord[]): Promise<Map<string, RunFigures>> {
  const figures = new Map<string, RunFigures>();
  for (const run of runs) {
    const durationMs = Math.max(0, Date.parse(run.updatedAt) - Date.parse(run.createdAt));
    figures.set(run.id, { durationMs, modelCalls: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, unpricedCalls: 0 });
  }
  for (const usage of await store.modelUsage(runs.map((run) => run.id))) {
    const run = figures.get(usage.runId);
    if (!run) continue;
    run.modelCalls += usage.calls;
    run.inputTokens += usage.inputTokens;
    run.outputTokens += usage.outputTokens;
    run.cachedInputTokens += usage.cacheReadInputTokens ?? 0;
    const cost = usage.model === null ? undefined : estimateCostUsd(usage.model, usage);
    if (cost === undefined) run.unpricedCalls += usage.calls;
    else run.costUsd = (run.costUsd ?? 0) + cost;
  }
  return figures;
}

/**
 * Run figures for a list read again and again (the viewer's run list): a run's figures are summed
 * again only when it changed since, so a page of finished runs costs the store nothing.
 */
export class RunFiguresCache {
  /** Past this many runs remembered, those not in the latest list are forgotten. */
  static readonly KEPT = 5000;
  readonly #known = new Map<string, { updatedAt: string; figures: RunFigures }>();

  constructor(private readonly store: RunStore) {}

  async of(runs: readonly RunRecord[]): Promise<Map<string, RunFigures>> {
    const changed = runs.filter((run) => this.#known.get(run.id)?.updatedAt !== run.updatedAt);
    const fresh = await runFigures(this.store, changed);
    for (const run of changed) this.#known.set(run.id, { updatedAt: run.updatedAt, figures: fresh.get(run.id)! });
    if (this.#known.size > RunFiguresCache.KEPT) {
      const listed = new Set(runs.map((run) => run.id));
      for (const id of this.#known.keys()) if (!listed.has(id)) this.#known.delete(id);
    }
    return new Map(runs.map((run) => [run.id, this.#known.get(run.id)!.figures]));
  }
}
