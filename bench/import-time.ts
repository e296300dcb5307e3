// How long `import "stepwise"` takes against `import "stepwise/planning"`: the root is the core, so it
// should cost little more than the planning layer alone. Each figure is the median of fresh Node
// processes importing the build (what users load), timed inside the process from the import to its end.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { medianWithRange, type Benchmark, type BenchFigure } from "./figure.js";

const BENCH = "import";
const PROCESSES = 5;
const REPO = fileURLToPath(new URL("..", import.meta.url));
const ENTRIES = { root_ms: "dist/index.js", planning_ms: "dist/planning/index.js" } as const;

function importMs(entry: string): number {
  const url = new URL(entry, `file://${REPO}`).href;
  const program = `const t = performance.now(); await import(${JSON.stringify(url)}); process.stdout.write(String(performance.now() - t));`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", program], { encoding: "utf8" }));
}

export const importTimeBenchmark: Benchmark = {
  name: BENCH,
  async run(): Promise<BenchFigure[]> {
    // The figures are of the current sources' build.
    execFileSync("npm", ["run", "build", "--silent"], { cwd: REPO, stdio: "inherit" });
    const times: Record<keyof typeof ENTRIES, number[]> = { root_ms: [], planning_ms: [] };
    // Alternating the two keeps a slow spell of a busy machine from landing on one of them only.
    for (let i = 0; i < PROCESSES; i++) {
      for (const [metric, entry] of Object.entries(ENTRIES) as [keyof typeof ENTRIES, string][]) times[metric].push(importMs(entry));
    }
    return (Object.keys(ENTRIES) as (keyof typeof ENTRIES)[]).map((metric) => {
      const { value, range } = medianWithRange(times[metric]);
      const round = (ms: number) => Math.round(ms * 10) / 10;
      return { bench: BENCH, metric, value: round(value), range: [round(range[0]), round(range[1])] };
    });
  },
};
