import { dollars, machineFailureNote, SCRIPTED_NOTICE, seconds, SUMMARY_COLUMNS, summaryCells, tokens } from "./eval-figures.js";
import type { EvalResult } from "./run-eval.js";
import { renderChart } from "./svg-chart.js";

/** The viewer's default address; a trial's run opens at `#run=<id>` once `stepwise ui --store <runs.db>` serves it. */
const VIEWER = "http://127.0.0.1:4780/";

/** One self-contained HTML page (inline style and SVG, nothing fetched): the chart, the summary and every trial. */
export function renderHtmlReport(result: EvalResult): string {
  const recorded = result.summary.filter((row) => row.trials > 0);
  const chart =
    recorded.length === 0
      ? "<p>No trial is recorded yet.</p>"
      : renderChart({
          name: "success-against-tokens",
          title: `Success rate against tokens${result.scripted ? " (SCRIPTED: no efficacy claim)" : ""}`,
          xLabel: "tokens per trial (input + output, mean)",
          yLabel: "success rate, % (95% Wilson interval)",
          kind: "scatter",
          labelPoints: true,
          yRange: [0, 100],
          series: recorded.map((row) => ({
            name: row.strategy,
            points: [[row.inputTokens + row.outputTokens, row.successRate * 100]],
            ranges: [[row.interval[0] * 100, row.interval[1] * 100]],
          })),
        });
  const trials = [...result.records].sort((a, b) => a.task.localeCompare(b.task) || a.strategy.localeCompare(b.strategy) || a.trial - b.trial);
  const notes = [
    result.resumed > 0 ? `${result.resumed} trial(s) were recorded by an earlier run of this eval and not run again.` : "",
    machineFailureNote(result.machineFailures) ?? "",
    result.budget?.exhausted ? `The token budget (${result.budget.maxTokens}) is spent: ${result.notRun} trial(s) were not run; the figures cover the recorded trials only.` : "",
    !result.budget?.exhausted && result.notRun > 0 ? `${result.notRun} trial(s) were not run (the eval was stopped).` : "",
  ].filter(Boolean);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stepwise eval: ${esc(result.model)}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#1f2328}table{border-collapse:collapse;margin:1em 0;display:block;overflow-x:auto;max-width:100%}td,th{border:1px solid #d0d7de;padding:.25em .6em;text-align:right}
td:first-child,th:first-child,td.reason{text-align:left}td{white-space:nowrap}td.reason{white-space:normal}.scripted{background:#fff8c5;border:2px solid #9a6700;padding:1em;font-weight:bold}.passed{color:#1a7f37}.failed{color:#d1242f}code{background:#f6f8fa;padding:0 .3em}
</style></head><body>
<h1>Stepwise eval: ${esc(result.model)}</h1>
${result.scripted ? `<p class="scripted">${esc(SCRIPTED_NOTICE)}</p>` : ""}
<p>${result.tasks.length} tasks × ${result.trials} trial(s) per strategy; success is avg@${result.trials} (per task, the share of its trials whose check passed, averaged over tasks), with a 95% Wilson interval over the trials.</p>
${notes.map((n) => `<p>${esc(n)}</p>`).join("\n")}
${chart}
<h2>Per strategy</h2>
${table(SUMMARY_COLUMNS, result.summary.map(summaryCells))}
<h2>Per task</h2>
<p>Trials passed of those recorded, per task and strategy: where the strategies differ, and which tasks no strategy solves.</p>
${table(["task", ...result.strategies], result.tasks.map((task) => [task, ...result.strategies.map((strategy) => passedOf(result, task, strategy))]))}
<h2>Every trial</h2>
<p>Open a trial's run: <code>stepwise ui --store ${esc(result.files.store)}</code>, then follow its link (the viewer's default port).</p>
<table><tr>${["task", "strategy", "trial", "outcome", "reason", "steps", "tokens", "cost", "wall", "run"].map((h) => `<th>${h}</th>`).join("")}</tr>
${trials
  .map(
    (t) =>
      `<tr><td>${esc(t.task)}</td><td>${esc(t.strategy)}</td><td>${t.trial}</td><td class="${t.outcome === "passed" ? "passed" : "failed"}">${t.outcome}</td><td class="reason">${esc(t.reason)}</td>` +
      `<td>${t.steps}</td><td>${tokens(t.inputTokens + t.outputTokens)}</td><td>${dollars(t.costUsd)}</td><td>${seconds(t.wallMs)}</td>` +
      `<td>${t.runId ? `<a href="${VIEWER}#run=${encodeURIComponent(t.runId)}">${esc(t.runId.slice(0, 8))}</a>` : ""}</td></tr>`,
  )
  .join("\n")}
</table>
</body></html>
`;
}

function passedOf(result: EvalResult, task: string, strategy: string): string {
  const trials = result.records.filter((r) => r.task === task && r.strategy === strategy);
  return trials.length === 0 ? "–" : `${trials.filter((r) => r.outcome === "passed").length}/${trials.length}`;
}

function table(head: readonly string[], rows: string[][]): string {
  return `<table><tr>${head.map((h) => `<th>${esc(h)}</th>`).join("")}</tr>\n${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(c)}</td>`).join("")}</tr>`).join("\n")}</table>`;
}

function esc(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
