// `npm run bench [-- --json] [-- --only name,name]`: runs the benchmarks side by side in one process.
import type { Benchmark, BenchFigure } from "./figure.js";
import { longRunBenchmark } from "./long-run.js";
import { todoContextBenchmark } from "./todo-context.js";
import { planNotebookPromptsBenchmark } from "./plan-notebook-prompts.js";
import { compilerDagBenchmark } from "./compiler-dag.js";
import { boardClaimsBenchmark } from "./board-claims.js";
import { boardScaleBenchmark } from "./board-scale.js";

// Each benchmark module adds itself here.
const benchmarks: Benchmark[] = [todoContextBenchmark, planNotebookPromptsBenchmark, longRunBenchmark, boardClaimsBenchmark, boardScaleBenchmark, compilerDagBenchmark];

const args = process.argv.slice(2);
const json = args.includes("--json");
const onlyIndex = args.indexOf("--only");
const only = onlyIndex >= 0 ? new Set((args[onlyIndex + 1] ?? "").split(",")) : undefined;
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
      const system = figure.system ? ` [${figure.system}]` : figure.tasks !== undefined ? ` [${figure.tasks} tasks]` : "";
      process.stdout.write(`${figure.bench}.${figure.metric}${system}: ${figure.value}\n`);
    }
  }
}
