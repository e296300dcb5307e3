import { SCRIPTED_NOTICE, SUMMARY_COLUMNS, summaryCells } from "./eval-figures.js";
import type { EvalResult } from "./run-eval.js";

/** The eval's summary as a plain-text table, with what was resumed, left out, and where the files are. */
export function summaryTable(result: EvalResult): string {
  const rows = [SUMMARY_COLUMNS, ...result.summary.map(summaryCells)];
  const widths = SUMMARY_COLUMNS.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
  const out: string[] = [];
  if (result.scripted) out.push(SCRIPTED_NOTICE, "");
  out.push(`model ${result.model}; ${result.tasks.length} tasks x ${result.trials} trial(s) per strategy`);
  out.push(line(rows[0] ?? []), ...rows.slice(1).map(line));
  if (result.resumed > 0) out.push(`${result.resumed} trial(s) were recorded by an earlier run of this eval and not run again.`);
  if (result.abortedRuns > 0) out.push(`${result.abortedRuns} run(s) of trials cut short by a kill are marked aborted in the store; those trials ran afresh.`);
  if (result.budget?.exhausted) out.push(`The token budget (${result.budget.maxTokens}) is spent (${result.budget.spent} used): ${result.notRun} trial(s) not run; the figures cover the recorded trials only.`);
  else if (result.notRun > 0) out.push(`${result.notRun} trial(s) not run (the eval was stopped); run the same command again to finish them.`);
  out.push(`trials: ${result.files.results}`, `report: ${result.files.report}`, `runs:   stepwise ui --store ${result.files.store}`);
  return `${out.join("\n")}\n`;
}
