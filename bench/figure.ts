/** One measured figure; printed as one JSON object per line with --json. */
export type BenchFigure = {
  bench: string;
  metric: string;
  value: number;
  system?: string;
  budget?: number;
  /** The board size a board-scale figure was measured at. */
  tasks?: number;
};

import type { Chart } from "../src/eval/svg-chart.js";

/**
 * A benchmark: a name and a function that measures and returns its figures. `plots`, when given,
 * returns the charts of the last run for `--plot` (a benchmark adds its own, e.g. claims/s against workers).
 */
export type Benchmark = { name: string; run(): Promise<BenchFigure[]>; plots?(): Chart[] };
