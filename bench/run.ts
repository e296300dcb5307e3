// `npm run bench [-- --json] [-- --only name,name] [-- --plot DIR]`: runs the benchmarks side by side in
// one process; with --plot, each benchmark's charts are written to DIR as SVG files.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Benchmark, BenchFigure } from "./figure.js";
import { renderChart } from "../src/eval/svg-chart.js";
import { longRunBenchmark } from "./long-run.js";
import { todoContextBenchmark } from "./todo-context.js";
import { planNotebookPromptsBenchmark } from "./plan-notebook-prompts.js";
import { compilerDagBenchmark } from "./compiler-dag.js";
import { boardClaimsBenchmark } from "./board-claims.js";
import { boardScaleBenchmark, boardScaleEmbeddedBenchmark } from "./board-scale.js";
import { importTimeBenchmark } from "./import-time.js";
import { fleetBenchmark } from "./fleet.js";

// Each benchmark module adds itself here.
const benchmarks: Benchmark[] = [todoContextBenchmark, planNotebookPromptsBenchmark, longRunBenchmark, boardClaimsBenchmark, boardScaleBenchmark, boardScaleEmbeddedBenchmark, compilerDagBenchmark, importTimeBenchmark, fleetBenchmark];

const args = process.argv.slice(2);
const json = args.includes("--json");
const onlyIndex = args.indexOf("--only");
const only = onlyIndex >= 0 ? new Set((args[onlyIndex + 1] ?? "").split(",")) : undefined;
const plotIndex = args.indexOf("--plot");
const plotDir = plotIndex >= 0 ? args[plotIndex + 1] : undefined;
if (plotIndex >= 0 && (!plotDir || plotDir.startsWith("--"))) {
  process.stderr.write("bench: --plot needs a folder to write the charts to, e.g. --plot docs/bench\n");
  process.exit(2);
}
const unknown = only ? [...only].filter((name) => !benchmarks.some((b) => b.name === name)) : [];
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown benchmark ${unknown.join(", ")}; known: ${benchmarks.map((b) => b.name).join(", ")}\n`);
  process.exit(2);
}

for (const benchmark of benchmarks) {
  if (only && !only.has(benchmark.name)) continue;
  const figures: BenchFigure[] = await benchmark.run();
  for (const figure of figures) {
    if (json) process.stdout.write(`${JSON.stringify(figure)}\n`);
    else {
      const system = figure.system ? ` [${figure.system}]` : "";
      const budget = figure.budget ? ` (budget ${figure.budget})` : "";
      const tasks = figure.tasks !== undefined ? ` (${figure.tasks} tasks)` : "";
      const head = figure.head ? ` (head ${figure.head})` : "";
      const pricing = figure.pricing ? ` (${figure.pricing} prices)` : "";
      const bound = figure.reciteAfterTokens !== undefined ? ` (recited after ${figure.reciteAfterTokens} tokens)` : "";
      const chaos = figure.chaos ? ` (chaos ${figure.chaos})` : "";
      const range = figure.range ? ` (range ${figure.range[0]}–${figure.range[1]})` : "";
      process.stdout.write(`${figure.bench}.${figure.metric}${system}${budget}${tasks}${head}${pricing}${bound}${chaos}: ${figure.value}${range}\n`);
    }
  }
  if (plotDir) {
    mkdirSync(plotDir, { recursive: true });
    for (const chart of benchmark.plots?.() ?? []) {
      const file = join(plotDir, `${chart.name}.svg`);
      writeFileSync(file, renderChart(chart));
      process.stderr.write(`bench: wrote ${file}\n`);
    }
  }
}
