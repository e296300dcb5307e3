import type { StrategyName } from "../runs/strategies.js";
import { TRIAL_OUTCOMES, type TrialOutcome, type TrialRecord } from "./trial-record.js";

/** z for a two-sided 95% interval. */
const Z95 = 1.959963984540054;

/**
 * The Wilson score interval (95%) for `passed` successes in `n` trials: unlike the normal
 * approximation it stays inside [0, 1] and is sensible at 0 and n successes and for small n.
 */
export function wilsonInterval(passed: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const p = passed / n;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** One strategy's figures over its recorded trials. */
export type StrategySummary = {
  strategy: StrategyName;
  trials: number;
  passed: number;
  /** avg@k: the mean over tasks of the share of each task's trials that passed. */
  successRate: number;
  /** Wilson 95% interval over the trials. */
  interval: [number, number];
  /** Means per trial. */
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  steps: number;
  wallMs: number;
  /** Summed over the trials; null when any trial's cost is unknown. */
  costUsd: number | null;
  outcomes: Record<TrialOutcome, number>;
};

export function summarize(records: readonly TrialRecord[], strategies: readonly StrategyName[]): StrategySummary[] {
  return strategies.map((strategy) => {
    const mine = records.filter((r) => r.strategy === strategy);
    const n = mine.length;
    const passed = mine.filter((r) => r.outcome === "passed").length;
    const byTask = new Map<string, TrialRecord[]>();
    for (const record of mine) byTask.set(record.task, [...(byTask.get(record.task) ?? []), record]);
    const shares = [...byTask.values()].map((trials) => trials.filter((r) => r.outcome === "passed").length / trials.length);
    const mean = (pick: (r: TrialRecord) => number) => (n === 0 ? 0 : mine.reduce((sum, r) => sum + pick(r), 0) / n);
    const outcomes = Object.fromEntries(TRIAL_OUTCOMES.map((kind) => [kind, mine.filter((r) => r.outcome === kind).length])) as Record<TrialOutcome, number>;
    const costs = mine.map((r) => r.costUsd);
    return {
      strategy,
      trials: n,
      passed,
      successRate: shares.length === 0 ? 0 : shares.reduce((a, b) => a + b, 0) / shares.length,
      interval: wilsonInterval(passed, n),
      inputTokens: mean((r) => r.inputTokens),
      cachedInputTokens: mean((r) => r.cachedInputTokens),
      outputTokens: mean((r) => r.outputTokens),
      steps: mean((r) => r.steps),
      wallMs: mean((r) => r.wallMs),
      costUsd: n > 0 && costs.every((c) => c !== null) ? costs.reduce<number>((a, c) => a + (c ?? 0), 0) : null,
      outcomes,
    };
  });
}
