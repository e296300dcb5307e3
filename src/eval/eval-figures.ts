import type { StrategySummary } from "./scoring.js";
import { TRIAL_OUTCOMES, type TrialRecord } from "./trial-record.js";

/** Said by every output of a scripted eval: the table, each record's `scripted` flag, the report. */
export const SCRIPTED_NOTICE =
  "SCRIPTED MODEL: these figures come from scripted answers and prove the eval harness (setup, checks, scoring, report, resume). They measure no model and no strategy; no efficacy claim follows from them.";

/** `text` broken between words into lines of at most `width` characters, for a terminal. */
export function wrapped(text: string, width = 100): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join("\n");
}

export const percent = (share: number): string => `${(share * 100).toFixed(0)}%`;

export const tokens = (n: number): string => (n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0));

export const dollars = (cost: number | null): string => (cost === null ? "n/a" : `$${cost.toFixed(cost < 1 ? 4 : 2)}`);

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/** The summary's columns, as text cells: the terminal table and the HTML report show the same. */
export const SUMMARY_COLUMNS = ["strategy", "success (avg@k)", "95% CI", "trials", "input/trial", "cached/trial", "output/trial", "cost (total)", "steps/trial", "wall/trial", ...TRIAL_OUTCOMES.slice(1)];

export function summaryCells(row: StrategySummary): string[] {
  return [
    row.strategy,
    percent(row.successRate),
    `${percent(row.interval[0])}–${percent(row.interval[1])}`,
    String(row.trials),
    tokens(row.inputTokens),
    tokens(row.cachedInputTokens),
    tokens(row.outputTokens),
    dollars(row.costUsd),
    row.steps.toFixed(1),
    seconds(row.wallMs),
    ...TRIAL_OUTCOMES.slice(1).map((kind) => String(row.outcomes[kind])),
  ];
}

/** What the summary and the report say when the machine failed trials this time; undefined when it did not. */
export function machineFailureNote(failures: readonly TrialRecord[]): string | undefined {
  const [first] = failures;
  if (!first) return undefined;
  return `${failures.length} trial(s) failed because of the machine, not the model (${first.reason}), so the eval stopped; they are not counted, and the same command runs them and the rest once that is fixed.`;
}
