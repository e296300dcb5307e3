import { SCRIPTED_NOTICE } from "../eval/eval-figures.js";
import { EvalTaskError } from "../eval/eval-task.js";
import { runEval, type EvalOptions } from "../eval/run-eval.js";
import { summaryTable } from "../eval/summary-table.js";
import { CliError } from "./cli-error.js";
import { exitCodeOf } from "./run-endings.js";

export type EvalCommandOptions = {
  model: string;
  strategies: string;
  trials: number;
  suite?: string;
  concurrency: number;
  out: string;
  maxTokens?: number;
};

/**
 * `stepwise eval`: argv to the eval library; one line per finished trial, then the summary table.
 * Ctrl-C stops the running trials (unrecorded: the same command runs them later) and prints the table so far.
 */
export async function evalCommand(opts: EvalCommandOptions, io: { stdout: NodeJS.WritableStream }): Promise<number> {
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.once("SIGINT", stop);
  const options: EvalOptions = {
    model: opts.model,
    out: opts.out,
    strategies: opts.strategies.split(",").map((s) => s.trim()).filter(Boolean),
    trials: opts.trials,
    concurrency: opts.concurrency,
    signal: stopping.signal,
    ...(opts.suite ? { suite: opts.suite } : {}),
    ...(opts.maxTokens ? { maxTokens: opts.maxTokens } : {}),
    onTrial: (record, done, planned) =>
      io.stdout.write(`trial ${done}/${planned} finished: ${record.strategy} ${record.task} #${record.trial} ${record.outcome} (${record.steps} steps)\n`),
  };
  try {
    if (opts.model.startsWith("scripted:")) io.stdout.write(`${SCRIPTED_NOTICE}\n\n`);
    const result = await runEval(options);
    io.stdout.write(`\n${summaryTable(result)}`);
    return stopping.signal.aborted ? exitCodeOf("aborted") : 0;
  } catch (error) {
    if (error instanceof EvalTaskError) throw new CliError(error.message);
    throw error;
  } finally {
    process.off("SIGINT", stop);
  }
}
