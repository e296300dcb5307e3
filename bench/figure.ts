/** One measured figure; printed as one JSON object per line with --json. */
export type BenchFigure = {
  bench: string;
  metric: string;
  value: number;
  system?: string;
  budget?: number;
  /** The board size a board-scale figure was measured at. */
  tasks?: number;
  /** Which board shape a board-scale figure was measured on ("blocked": the start of the board waits on its end). */
  head?: string;
  /** The price list a cost figure was computed with ("anthropic", "openai"). */
  pricing?: string;
  /** The todo list's recitation bound a figure was measured with (todoList's reciteAfterTokens). */
  reciteAfterTokens?: number;
  /** The failures a figure was measured under ("kill": a worker process killed with kill -9 every 10 s). */
  chaos?: string;
  /** For a median of several runs: the lowest and highest run, so its spread is in view. */
  range?: [number, number];
};

import type { Chart } from "../src/eval/svg-chart.js";

/**
 * A benchmark: a name and a function that measures and returns its figures. `plots`, when given,
 * returns the charts of the last run for `--plot` (a benchmark adds its own, e.g. claims/s against workers).
 */
export type Benchmark = { name: string; run(): Promise<BenchFigure[]>; plots?(): Chart[] };

/** The median of `values` and their range: how a figure measured several times is reported. */
export function medianWithRange(values: readonly number[]): { value: number; range: [number, number] } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const value = sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  return { value, range: [sorted[0] as number, sorted.at(-1) as number] };
}
