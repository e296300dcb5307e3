import { machineFailureNote, SCRIPTED_NOTICE, SUMMARY_COLUMNS, summaryCells, wrapped } from "./eval-figures.js";
import { TRIAL_OUTCOMES } from "./trial-record.js";
import type { EvalResult } from "./run-eval.js";

/**
 * The summary's columns in two tables that each fit a terminal: how the trials ended, then what they
 * cost. (The HTML report shows them side by side.)
 */
const TABLES: readonly (readonly string[])[] = [
  ["strategy", "success (avg@k)", "95% CI", "trials", ...TRIAL_OUTCOMES.slice(1)],
  ["strategy", "input/trial", "cached/trial", "output/trial", "steps/trial", "wall/trial", "cost (total)"],
];

/** The eval's summary as plain-text tables, with what was resumed, left out, and where the files are. */
export function summaryTable(result: EvalResult): string {
  const cells = result.summary.map(summaryCells);
  const out: string[] = [];
  if (result.scripted) out.push(wrapped(SCRIPTED_NOTICE), "");
  const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
  out.push(`model ${result.model}; ${count(result.tasks.length, "task")} × ${count(result.trials, "trial")} per strategy`);
  TABLES.forEach((columns, table) => {
    const at = columns.map((name) => SUMMARY_COLUMNS.indexOf(name));
    const rows = [[...columns], ...cells.map((row) => at.map((i) => row[i] ?? ""))];
    const widths = columns.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
    const line = (row: string[]) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ");
    if (table > 0) out.push("");
    out.push(...rows.map(line));
  });
  if (result.resumed > 0) out.push(`${result.resumed} trial(s) were recorded by an earlier run of this eval and not run again.`);
  if (result.abortedRuns > 0) out.push(`${result.abortedRuns} run(s) of trials cut short by a kill are marked aborted in the store; those trials ran afresh.`);
  const machine = machineFailureNote(result.machineFailures);
  if (machine) out.push(machine);
  if (result.budget?.exhausted) out.push(`The token budget (${result.budget.maxTokens}) is spent (${result.budget.spent} used): ${result.notRun} trial(s) not run; the figures cover the recorded trials only.`);
  else if (result.notRun > 0) out.push(`${result.notRun} trial(s) not run (the eval was stopped); run the same command again to finish them.`);
  out.push(`trials: ${result.files.results}`, `report: ${result.files.report}`, `runs:   stepwise ui --store ${result.files.store}`);
  return `${out.join("\n")}\n`;
}
