/** One measured figure; printed as one JSON object per line with --json. */
export type BenchFigure = { bench: string; metric: string; value: number; system?: string; /** The board size a board-scale figure was measured at. */ tasks?: number };

/** A benchmark: a name and a function that measures and returns its figures. */
export type Benchmark = { name: string; run(): Promise<BenchFigure[]> };
