import { SCRIPTED_NOTICE, wrapped } from "../eval/eval-figures.js";
import { EvalTaskError } from "../eval/eval-task.js";
import { runEval, type EvalOptions } from "../eval/run-eval.js";
import { summaryTable } from "../eval/summary-table.js";
import { isCounted } from "../eval/trial-record.js";
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
export async function evalCommand(opts: EvalCommandOptions, io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Promise<number> {
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
    // Said once the options are known to be good: an argument error is the only line it prints.
    onStart: () => void (opts.model.startsWith("scripted:") && io.stdout.write(`${wrapped(SCRIPTED_NOTICE)}\n\n`)),
    onTrial: (record, done, planned) =>
      io.stdout.write(
        isCounted(record)
          ? `trial ${done}/${planned} finished: ${record.strategy} ${record.task} #${record.trial} ${record.outcome} (${countOf(record.steps, "step")})\n`
          : `trial ${record.strategy} ${record.task} #${record.trial} failed because of the machine, not the model: ${record.reason}; not counted, it runs again next time\n`,
      ),
    onNotice: (notice) => io.stderr.write(`stepwise: ${notice}\n`),
  };
  try {
    const result = await runEval(options);
    io.stdout.write(`\n${summaryTable(result)}`);
    if (stopping.signal.aborted) return exitCodeOf("aborted");
    // Trials the machine failed are not done: a script must not take the eval for finished.
    return result.machineFailures.length > 0 ? exitCodeOf("failed") : 0;
  } catch (error) {
    if (error instanceof EvalTaskError) throw new CliError(error.message);
    throw error;
  } finally {
    process.off("SIGINT", stop);
  }
}

/** "1 step", "3 steps". */
function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
