// The LLM compiler on simulated tools with fixed latencies: how close its schedule comes to the
// critical path, what parallel lookups gain over one-by-one execution, how soon a streamed task
// starts, and the whole run (the planner streaming its plan, the tasks, the joiner) against plain
// ReAct making one tool call per turn, both on the same scripted latencies (a model call's first
// token, then each line it writes; each tool's latency).
import { z } from "zod";
import type { ChatModel, ModelStreamPart } from "../src/core/model.js";
import { defineTool, type Tool } from "../src/core/tool.js";
import { Agent } from "../src/core/agent.js";
import { scriptedModel } from "../src/models/scripted.js";
import { LLMCompiler } from "../src/planning/workflows/llm-compiler/llm-compiler.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import type { Chart } from "../src/eval/svg-chart.js";

const LATENCIES_MS = [10, 20, 30];
const DAG_SIZES = [10, 25, 50, 75, 100, 150, 200];
const LOOKUP_MS = 20;
const PLANNER_LINE_MS = 20;
/** Scripted model latency, for the whole-run comparison: the time to a call's first token, and then to each line it writes. */
const FIRST_TOKEN_MS = 40;
const LINE_MS = 10;
/** The whole-run workloads: random DAGs of these sizes, and the paper's parallel setting (8 lookups, then a join). */
const END_TO_END_SIZES = [10, 25];
const REPEATS = 3;
const LIMITED_WORKERS = 4;

type SimulatedTask = { id: number; latency: number; deps: number[] };

/** The last run's makespans per DAG: what `--plot` draws. */
let lastRuns: DagRun[] = [];

export const compilerDagBenchmark: Benchmark = {
  name: "compiler-dag",
  async run(): Promise<BenchFigure[]> {
    const figure = (metric: string, value: number): BenchFigure => ({ bench: "compiler-dag", metric, value: Math.round(value * 1000) / 1000 });
    const ratios = await makespanRatios();
    lastRuns = ratios.runs;
    const whole = await endToEnd();
    return [
      figure("makespan_over_critical_path", ratios.measured),
      figure("makespan_over_nominal_critical_path", ratios.nominal),
      figure("makespan_over_bound_4_workers", await limitedWorkersRatio()),
      figure("speedup_parallel_lookups", await parallelLookupSpeedup()),
      figure("first_task_start_ms", await firstTaskStart()),
      ...whole,
    ];
  },
  plots: (): Chart[] => [
    {
      name: "compiler-end-to-end",
      title: "LLM compiler, whole run (planner, tasks, joiner) against ReAct, one call per turn",
      xLabel: "tasks",
      yLabel: "wall time (ms)",
      kind: "scatter",
      series: [
        { name: "ReAct", points: lastEndToEnd.map((r): [number, number] => [r.tasks, r.reactMs]) },
        { name: "LLM compiler", points: lastEndToEnd.map((r): [number, number] => [r.tasks, r.compilerMs]) },
      ],
    },
    {
      name: "compiler-makespan",
      title: "LLM compiler: makespan against the critical path, random DAGs of 10-200 tasks",
      xLabel: "critical path (ms)",
      yLabel: "makespan (ms)",
      kind: "scatter",
      diagonal: true,
      series: [
        { name: "against the tasks' measured durations", points: lastRuns.map((run): [number, number] => [run.criticalPath, run.makespan]) },
        { name: "against their nominal latencies", points: lastRuns.map((run): [number, number] => [run.nominalCriticalPath, run.makespan]) },
      ],
    },
  ],
};

/** Makespans of one pass over the random DAGs, for the ratio figures and the plot. */
export type DagRun = { tasks: number; makespan: number; criticalPath: number; nominalCriticalPath: number };

/**
 * Random DAGs of 10 to 200 tasks: the worst ratio of the compiler's makespan to the critical path of
 * the tasks as they ran (each task's measured duration), and to the nominal one (its set latency).
 * The first isolates the compiler's own overhead (planning, start latency, ordering): on a loaded
 * machine a simulated tool's timer overshoots its latency by milliseconds, which no scheduler can
 * win back. Each DAG runs REPEATS times and counts with its median, after one warm-up run.
 */
async function makespanRatios(): Promise<{ measured: number; nominal: number; runs: DagRun[] }> {
  const random = mulberry32(6);
  const dags = DAG_SIZES.map((size) => randomDag(size, random));
  await runDag(dags[0] as SimulatedTask[]);
  const runs: DagRun[] = [];
  for (const tasks of dags) {
    const repeats: DagRun[] = [];
    for (let r = 0; r < REPEATS; r++) repeats.push(await runDag(tasks));
    runs.push(medianBy(repeats, (run) => run.makespan / run.criticalPath));
  }
  return {
    measured: Math.max(...runs.map((run) => run.makespan / run.criticalPath)),
    nominal: Math.max(...runs.map((run) => run.makespan / run.nominalCriticalPath)),
    runs,
  };
}

/** One simulated tool per latency, taking the task's number; `timed` hears when each task's call started and ended. */
function dagTools(timed: (task: number, started: number, ended: number) => void): Tool[] {
  return LATENCIES_MS.map((latency) =>
    defineTool({
      name: `sim_${latency}`,
      description: `A simulated tool that answers after ${latency} ms.`,
      parameters: z.object({ task: z.number(), input: z.string() }),
      readOnly: true,
      execute: async ({ task, input }) => {
        const started = performance.now();
        await sleep(latency);
        timed(task, started, performance.now());
        return `sim_${latency}:${input.length}`;
      },
    }),
  );
}

async function runDag(tasks: readonly SimulatedTask[], maxParallel?: number): Promise<DagRun & { work: number }> {
  const durations = new Map<number, number>();
  let lastEnd = 0;
  const tools = dagTools((task, started, ended) => {
    lastEnd = ended;
    durations.set(task, ended - started);
  });
  const plan = planLines(tasks).join("\n");
  const compiler = new LLMCompiler({ model: scriptedModel([plan]), joinerModel: scriptedModel([finishReply]), tools, ...(maxParallel ? { maxParallel } : {}) });
  const started = performance.now();
  await compiler.run("simulated DAG");
  return {
    tasks: tasks.length,
    work: [...durations.values()].reduce((a, b) => a + b, 0),
    makespan: lastEnd - started,
    criticalPath: criticalPath(tasks, (t) => durations.get(t.id) ?? 0),
    nominalCriticalPath: criticalPath(tasks, (t) => t.latency),
  };
}

/**
 * The same DAGs with only LIMITED_WORKERS tasks at a time: the worst ratio of the makespan to the
 * lower bound no schedule can beat, the larger of the critical path and the work shared by the
 * workers (both from the tasks' measured durations). Here the order of ready tasks matters.
 */
async function limitedWorkersRatio(): Promise<number> {
  const random = mulberry32(6);
  let worst = 0;
  for (const size of DAG_SIZES) {
    const run = await runDag(randomDag(size, random), LIMITED_WORKERS);
    worst = Math.max(worst, run.makespan / Math.max(run.criticalPath, run.work / LIMITED_WORKERS));
  }
  return worst;
}

function medianBy<T>(values: readonly T[], key: (value: T) => number): T {
  return [...values].sort((a, b) => key(a) - key(b))[Math.floor(values.length / 2)] as T;
}

/** The paper's parallel setting: 8 independent lookups then a join, against the same tasks one at a time. */
async function parallelLookupSpeedup(): Promise<number> {
  const plan = Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: i + 1, tool: "lookup", args: { input: `entity ${i + 1}` } })).join("\n");
  const timed = async (maxParallel?: number) => {
    const compiler = new LLMCompiler({
      model: scriptedModel([plan]),
      joinerModel: scriptedModel([finishReply]),
      tools: [simulatedTool("lookup", LOOKUP_MS, () => {})],
      ...(maxParallel ? { maxParallel } : {}),
    });
    const started = performance.now();
    await compiler.run("look up eight entities");
    return performance.now() - started;
  };
  const sequential = await timed(1);
  const parallel = await timed();
  return sequential / parallel;
}

/** From the moment the planner's stream completes the first task line to that task starting (worst of 5). */
async function firstTaskStart(): Promise<number> {
  let worst = 0;
  for (let run = 0; run < 5; run++) {
    let lineDone = 0;
    let taskStarted = 0;
    const lines = Array.from({ length: 4 }, (_, i) => `${JSON.stringify({ id: i + 1, tool: "lookup", args: { input: `q${i}` } })}\n`);
    const planner: ChatModel = {
      id: "streaming-planner",
      generate: () => Promise.reject(new Error("this planner only streams")),
      async *stream(): AsyncIterable<ModelStreamPart> {
        for (const [index, line] of lines.entries()) {
          await sleep(PLANNER_LINE_MS);
          const half = Math.floor(line.length / 2);
          yield { type: "text-delta", text: line.slice(0, half) };
          if (index === 0) lineDone = performance.now();
          yield { type: "text-delta", text: line.slice(half) };
        }
        yield { type: "response", response: { message: { role: "assistant", content: lines.join("") } } };
      },
    };
    const lookup = simulatedTool("lookup", LOOKUP_MS, () => {}, () => (taskStarted ||= performance.now()));
    await new LLMCompiler({ model: planner, joinerModel: scriptedModel([finishReply]), tools: [lookup] }).run("stream a plan");
    worst = Math.max(worst, taskStarted - lineDone);
  }
  return worst;
}

const finishReply = JSON.stringify({ action: "finish", answer: "done" });

type EndToEnd = { name: string; tasks: number; compilerMs: number; reactMs: number; overCriticalPath: number };

/**
 * The whole run on each workload, REPEATS times (median): the compiler's makespan against ReAct's, and
 * against the whole run's critical path: a task starts once its plan line is written and the tasks
 * it uses are done, the joiner once the plan is written and every task is done. That path is computed
 * from what each part took in this run (line times, task durations, the joiner's call), so a loaded
 * machine's late timers do not count against the compiler.
 */
async function endToEnd(): Promise<BenchFigure[]> {
  const random = mulberry32(9);
  const workloads: { name: string; tasks: SimulatedTask[] }[] = [
    ...END_TO_END_SIZES.map((size) => ({ name: `random DAG of ${size}`, tasks: randomDag(size, random) })),
    { name: "8 parallel lookups", tasks: Array.from({ length: 8 }, (_, i) => ({ id: i + 1, latency: LOOKUP_MS, deps: [] })) },
  ];
  const results: EndToEnd[] = [];
  for (const { name, tasks } of workloads) {
    const runs: { compilerMs: number; reactMs: number; overCriticalPath: number }[] = [];
    for (let r = 0; r < REPEATS; r++) {
      const compiler = await wholeCompilerRun(tasks);
      runs.push({ compilerMs: compiler.makespan, reactMs: await reactRun(tasks), overCriticalPath: compiler.makespan / compiler.criticalPath });
    }
    const median = (key: keyof (typeof runs)[number]) => medianBy(runs, (run) => run[key])[key];
    results.push({ name, tasks: tasks.length, compilerMs: median("compilerMs"), reactMs: median("reactMs"), overCriticalPath: median("overCriticalPath") });
  }
  lastEndToEnd = results;
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const randomDags = results.filter((result) => result.name.startsWith("random"));
  const geometricMean = Math.exp(randomDags.reduce((sum, r) => sum + Math.log(r.reactMs / r.compilerMs), 0) / randomDags.length);
  return [
    // Headline: the random DAGs' speedup (their geometric mean), and the worst ratio to the whole run's critical path.
    { bench: "compiler-dag", metric: "speedup_vs_react", value: round(geometricMean) },
    { bench: "compiler-dag", metric: "makespan_over_critical_path", system: "end-to-end", value: round(Math.max(...results.map((r) => r.overCriticalPath))) },
    ...results.flatMap((r): BenchFigure[] => [
      { bench: "compiler-dag", metric: "speedup_vs_react", system: r.name, tasks: r.tasks, value: round(r.reactMs / r.compilerMs) },
      { bench: "compiler-dag", metric: "makespan_over_critical_path", system: `end-to-end, ${r.name}`, tasks: r.tasks, value: round(r.overCriticalPath) },
    ]),
  ];
}

let lastEndToEnd: EndToEnd[] = [];

/** The compiler with a planner that streams one task line every LINE_MS after its first token, and a scripted joiner. */
async function wholeCompilerRun(tasks: readonly SimulatedTask[]): Promise<{ makespan: number; criticalPath: number }> {
  const lineAt = new Map<number, number>();
  const started = new Map<number, number>();
  const ended = new Map<number, number>();
  let plannedAt = 0;
  let joinStart = 0;
  let joinEnd = 0;
  const tools = dagTools((task, start, end) => {
    started.set(task, start);
    ended.set(task, end);
  });
  const lines = planLines(tasks);
  const planner: ChatModel = {
    id: "streaming-planner",
    generate: () => Promise.reject(new Error("this planner only streams")),
    async *stream(): AsyncIterable<ModelStreamPart> {
      await sleep(FIRST_TOKEN_MS - LINE_MS);
      for (const [index, line] of lines.entries()) {
        await sleep(LINE_MS);
        yield { type: "text-delta", text: `${line}\n` };
        lineAt.set((tasks[index] as SimulatedTask).id, performance.now());
      }
      plannedAt = performance.now();
      yield { type: "response", response: { message: { role: "assistant", content: lines.join("\n") } } };
    },
  };
  const joiner: ChatModel = {
    id: "joiner",
    async generate() {
      joinStart = performance.now();
      await sleep(FIRST_TOKEN_MS + LINE_MS);
      joinEnd = performance.now();
      return { message: { role: "assistant", content: finishReply } };
    },
  };
  const begin = performance.now();
  await new LLMCompiler({ model: planner, joinerModel: joiner, tools }).run("simulated DAG");
  const makespan = performance.now() - begin;
  // The whole run's critical path from what each part took: lines as written, tasks as they ran.
  const finish = new Map<number, number>();
  for (const task of tasks) {
    const ready = Math.max((lineAt.get(task.id) ?? begin) - begin, ...task.deps.map((d) => finish.get(d) ?? 0));
    finish.set(task.id, ready + ((ended.get(task.id) ?? 0) - (started.get(task.id) ?? 0)));
  }
  const criticalPath = Math.max(plannedAt - begin, ...finish.values()) + (joinEnd - joinStart);
  return { makespan, criticalPath };
}

/** Plain ReAct on the same tasks: one tool call per model turn, in id order (a valid order), then the answer. */
async function reactRun(tasks: readonly SimulatedTask[]): Promise<number> {
  const tools = LATENCIES_MS.map((latency) => simulatedTool(`sim_${latency}`, latency, () => {}));
  let next = 0;
  const model: ChatModel = {
    id: "react",
    async generate() {
      await sleep(FIRST_TOKEN_MS + LINE_MS);
      const task = tasks[next++];
      if (!task) return { message: { role: "assistant", content: "done" } };
      return { message: { role: "assistant", content: "", toolCalls: [{ id: `c${task.id}`, name: `sim_${task.latency}`, arguments: JSON.stringify({ input: task.deps.map(String).join(" ") || "start" }) }] } };
    },
  };
  const begin = performance.now();
  await new Agent({ model, tools, maxSteps: tasks.length + 2 }).run("simulated DAG");
  return performance.now() - begin;
}

function planLines(tasks: readonly SimulatedTask[]): string[] {
  return tasks.map((t) => JSON.stringify({ id: t.id, tool: `sim_${t.latency}`, args: { task: t.id, input: t.deps.map((d) => `$${d}`).join(" ") || "start" } }));
}

function simulatedTool(name: string, latency: number, onEnd: () => void, onStart: () => void = () => {}): Tool {
  return defineTool({
    name,
    description: `A simulated tool that answers after ${latency} ms.`,
    parameters: z.object({ input: z.string() }),
    readOnly: true,
    execute: async ({ input }) => {
      onStart();
      await sleep(latency);
      onEnd();
      return `${name}:${input.length}`;
    },
  });
}

/** Each task depends on up to three random earlier tasks, so depth and width vary from DAG to DAG. */
function randomDag(size: number, random: () => number): SimulatedTask[] {
  const tasks: SimulatedTask[] = [];
  for (let id = 1; id <= size; id++) {
    const deps = new Set<number>();
    const count = id === 1 ? 0 : Math.floor(random() * 4);
    for (let k = 0; k < count; k++) deps.add(1 + Math.floor(random() * (id - 1)));
    tasks.push({ id, latency: LATENCIES_MS[Math.floor(random() * LATENCIES_MS.length)] as number, deps: [...deps] });
  }
  return tasks;
}

/** The longest chain of dependent tasks, each counting `duration`. */
function criticalPath(tasks: readonly SimulatedTask[], duration: (task: SimulatedTask) => number): number {
  const finish = new Map<number, number>();
  for (const task of tasks) finish.set(task.id, duration(task) + Math.max(0, ...task.deps.map((d) => finish.get(d) ?? 0)));
  return Math.max(...finish.values());
}

function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
