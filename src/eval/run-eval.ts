import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ChatModel } from "../core/model.js";
import { resolveModel } from "../models/model-spec.js";
import { RunInputError } from "../runs/run-input-error.js";
import { openStores } from "../runs/store-set.js";
import { BASELINE_STRATEGY, STRATEGIES, parseStrategy, type ModelsByRole, type StrategyName } from "../runs/strategies.js";
import { BUILTIN_SUITE, loadSuite, type EvalTask } from "./eval-task.js";
import { renderHtmlReport } from "./html-report.js";
import { abortOrphanedTrials } from "./orphaned-trials.js";
import { lockOutFolder } from "./out-folder-lock.js";
import { summarize, type StrategySummary } from "./scoring.js";
import { demoBrains, SCRIPTED_DEMO } from "./scripted-brains.js";
import { runTrial, type TrialPlan } from "./trial.js";
import { machineFailure } from "./machine-failure.js";
import { appendTrialRecord, isCounted, readTrialRecords, trialKey, type TrialRecord } from "./trial-record.js";

/** Every strategy the eval can compare: the plain ReAct baseline first, then the planning strategies. */
export const EVAL_STRATEGIES: readonly StrategyName[] = [BASELINE_STRATEGY, ...STRATEGIES];

export type EvalOptions = {
  /** A model spec (`openai:gpt-4o-mini`), or `scripted:demo` to prove the harness offline. */
  model: string;
  /** Where results.jsonl, runs.db and report.html go; running again with the same folder resumes. */
  out: string;
  /** Default: every strategy and the baseline. The baseline is always added: it is what the others are measured against. */
  strategies?: readonly string[];
  /** Trials per task and strategy (k of avg@k; default 3). */
  trials?: number;
  /** A suite folder, or tasks already loaded (default: the built-in suite). */
  suite?: string | EvalTask[];
  /** Trials running at once (default 1). */
  concurrency?: number;
  /** Input plus output tokens the eval may spend, recorded trials included: past it no trial starts, and running ones stop. */
  maxTokens?: number;
  /** Models per task, strategy and trial, instead of resolving `model` (tests, library users with their own client). */
  models?: (task: EvalTask, strategy: StrategyName, trial: number) => ModelsByRole;
  signal?: AbortSignal;
  /** Called once the options are checked, before the first trial: how many trials are planned, how many an earlier run recorded. */
  onStart?: (plan: { planned: number; recorded: number }) => void;
  /** Called as each trial is recorded, with how many are recorded of how many planned (a trial the machine failed is not among them). */
  onTrial?: (record: TrialRecord, done: number, planned: number) => void;
  /** Told what the eval repaired or could not do: a cut-off last line of results.jsonl dropped, the report not written. */
  onNotice?: (notice: string) => void;
};

export type EvalResult = {
  model: string;
  scripted: boolean;
  strategies: StrategyName[];
  tasks: string[];
  trials: number;
  records: TrialRecord[];
  summary: StrategySummary[];
  /** Trials recorded by an earlier invocation and not run again. */
  resumed: number;
  /** Runs of trials an earlier invocation was killed in, marked aborted (those trials run afresh). */
  abortedRuns: number;
  /** Trials planned but not recorded: the budget was spent, the eval was stopped, or the machine failed. */
  notRun: number;
  /**
   * This invocation's trials the machine failed (the disk or the store full): recorded as such, not
   * counted, run again by the next invocation. The first one stops the eval, as every later trial would fail too.
   */
  machineFailures: TrialRecord[];
  budget: { maxTokens: number; spent: number; exhausted: boolean } | undefined;
  files: { results: string; store: string; report: string };
};

/** The eval: every task under every chosen strategy, k trials each, recorded as they finish. */
export async function runEval(opts: EvalOptions): Promise<EvalResult> {
  const trials = opts.trials ?? 3;
  const concurrency = opts.concurrency ?? 1;
  if (!Number.isInteger(trials) || trials < 1) throw new RunInputError(`trials must be a whole number of at least 1, not ${trials}`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RunInputError(`concurrency must be a whole number of at least 1, not ${concurrency}`);
  const strategies = chooseStrategies(opts.strategies);
  const tasks = Array.isArray(opts.suite) ? opts.suite : loadSuite(opts.suite ?? BUILTIN_SUITE);

  const out = resolve(opts.out);
  mkdirSync(out, { recursive: true });
  const unlock = lockOutFolder(out);
  try {
    return await evaluate(opts, { out, strategies, tasks, trials, concurrency });
  } finally {
    unlock();
  }
}

/** What runEval checked and settled before taking the --out folder. */
type EvalPlan = { out: string; strategies: StrategyName[]; tasks: EvalTask[]; trials: number; concurrency: number };

async function evaluate(opts: EvalOptions, { out, strategies, tasks, trials, concurrency }: EvalPlan): Promise<EvalResult> {
  const scripted = opts.model.startsWith("scripted:");
  const files = { results: join(out, "results.jsonl"), store: join(out, "runs.db"), report: join(out, "report.html") };
  const recorded = readTrialRecords(files.results, opts.onNotice);
  const otherModel = recorded.find((r) => r.model !== opts.model);
  if (otherModel) throw new RunInputError(`${out} holds an eval of ${otherModel.model}, not ${opts.model}; give another --out`);
  // Trials the machine failed earlier are run again.
  const earlier = recorded.filter(isCounted);
  const models = opts.models ?? modelsFor(opts.model);
  const records = [...earlier];
  const machineFailures: TrialRecord[] = [];
  let unwritable: string | undefined;
  const finished = new Set(earlier.map(trialKey));
  const planned: TrialPlan[] = [];
  for (const task of tasks) for (const strategy of strategies) for (let trial = 1; trial <= trials; trial++) planned.push({ task, strategy, trial });
  const queue = planned.filter((p) => !finished.has(trialKey({ task: p.task.id, strategy: p.strategy, trial: p.trial })));
  const inScope = (r: TrialRecord) => strategies.includes(r.strategy) && tasks.some((t) => t.id === r.task) && r.trial <= trials;
  const resumed = earlier.filter(inScope).length;
  opts.onStart?.({ planned: planned.length, recorded: resumed });

  let spent = earlier.reduce((sum, r) => sum + r.inputTokens + r.outputTokens, 0);
  const stop = new AbortController();
  const overBudget = () => opts.maxTokens !== undefined && spent >= opts.maxTokens;
  const onAbort = () => stop.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  if (opts.signal?.aborted || overBudget()) stop.abort();

  const stores = openStores(files.store);
  let abortedRuns = 0;
  try {
    abortedRuns = await abortOrphanedTrials(stores, new Set(earlier.map((r) => r.runId ?? "")));
    // A fixed number of workers take trials off one queue: never more than `concurrency` at once.
    const work = async () => {
      for (let next = queue.shift(); next && !stop.signal.aborted; next = queue.shift()) {
        const record = await runTrial(next, {
          stores,
          model: opts.model,
          models: models(next.task, next.strategy, next.trial),
          scripted,
          signal: stop.signal,
          onUsage: (usage) => {
            spent += usage.inputTokens + usage.outputTokens;
            if (overBudget()) stop.abort();
          },
        });
        if (!record) continue;
        try {
          appendTrialRecord(files.results, record);
        } catch (error) {
          // Nothing more can be kept: no trial starts, the running ones stop unrecorded, and all of them run next time.
          unwritable ??= machineFailure(error) ?? (error instanceof Error ? error.message : String(error));
          stop.abort();
          continue;
        }
        if (!isCounted(record)) {
          machineFailures.push(record);
          stop.abort();
        } else records.push(record);
        opts.onTrial?.(record, records.filter(inScope).length, planned.length);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(queue.length, 1)) }, work));
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    await stores.close();
  }

  if (unwritable) throw new Error(`${files.results} could not be written (${unwritable}); the trials not in it run again when the same command runs once that is fixed`);
  const current = records.filter(inScope);
  const result: EvalResult = {
    model: opts.model,
    scripted,
    strategies,
    tasks: tasks.map((t) => t.id),
    trials,
    records: current,
    summary: summarize(current, strategies),
    resumed,
    abortedRuns,
    notRun: planned.length - current.length,
    machineFailures,
    budget: opts.maxTokens === undefined ? undefined : { maxTokens: opts.maxTokens, spent, exhausted: overBudget() },
    files,
  };
  try {
    writeFileSync(files.report, renderHtmlReport(result));
  } catch (error) {
    // The figures are in hand and the trials recorded: say what is missing rather than lose the summary.
    opts.onNotice?.(`${files.report} could not be written (${machineFailure(error) ?? (error instanceof Error ? error.message : String(error))}); the same command writes it`);
  }
  return result;
}

function chooseStrategies(given: readonly string[] | undefined): StrategyName[] {
  if (!given || given.length === 0 || given.includes("all")) return [...EVAL_STRATEGIES];
  const chosen = new Set<StrategyName>([BASELINE_STRATEGY]);
  for (const name of given) chosen.add(parseStrategy(name));
  return EVAL_STRATEGIES.filter((s) => chosen.has(s));
}

function modelsFor(spec: string): (task: EvalTask, strategy: StrategyName, trial: number) => ModelsByRole {
  if (spec === SCRIPTED_DEMO) return demoBrains;
  if (spec.startsWith("scripted:")) throw new RunInputError(`unknown scripted model "${spec}"; the offline one is ${SCRIPTED_DEMO}`);
  let model: ChatModel;
  try {
    model = resolveModel(spec);
  } catch (error) {
    throw new RunInputError(error instanceof Error ? error.message : String(error));
  }
  return () => () => model;
}
