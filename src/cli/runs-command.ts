import type { Checklist } from "../runs/checklist.js";
import { formatDuration } from "../runs/durations.js";
import { runFigures, type RunFigures } from "../runs/run-figures.js";
import type { StoreSet } from "../runs/store-set.js";
import type { RunRecord, RunStatus } from "../stores/run-store.js";
import { checklistLines, oneLine } from "./checklist-text.js";
import { namedRun } from "./named-run.js";
import { openCliStores } from "./run-command.js";
import { RUN_ENDINGS, type RunEnding } from "./run-endings.js";

export type RunsOptions = { database: string; store?: string };

/** How many runs `runs list` shows when not told: one screen. */
export const RUNS_LISTED = 50;
/** Characters of a run id a list shows (more where two listed runs share them): any unique prefix is accepted back. */
const SHORT_ID = 8;

async function withStores<T>(opts: RunsOptions, use: (stores: StoreSet) => Promise<T>): Promise<T> {
  const stores = await openCliStores({ ...opts, mustExist: true });
  try {
    return await use(stores);
  } finally {
    await stores.close();
  }
}

/** `stepwise runs list`: one line per run, newest first, with what it took; `status` picks some. */
export function runsList(opts: RunsOptions & { status?: RunStatus[]; limit?: number }, out: NodeJS.WritableStream): Promise<void> {
  return withStores(opts, async (stores) => {
    const { runs, total } = await stores.runs.findRuns({ limit: opts.limit ?? RUNS_LISTED, ...(opts.status ? { status: opts.status } : {}) });
    if (total === 0) {
      const all = opts.status ? (await stores.runs.findRuns({ limit: 1 })).total : 0;
      out.write(
        all > 0
          ? `No run is ${opts.status!.join(" or ")}; the store ${stores.location} has ${all} run(s) of other statuses.\n`
          : `No runs yet: the store ${stores.location} is empty. Run: stepwise run "<task>"\n`,
      );
      return;
    }
    const figures = await runFigures(stores.runs, runs);
    const ids = shortIds(runs.map((run) => run.id));
    const rows = runs.map((run, i) => {
      const figure = figures.get(run.id)!;
      return [ids[i]!, run.status, run.strategy, formatDuration(figure.durationMs), costText(figure), run.createdAt.slice(0, 16).replace("T", " "), oneLine(run.task, 60)];
    });
    const header = ["ID", "STATUS", "STRATEGY", "TIME", "COST", "STARTED (UTC)", "TASK"];
    const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]!.length)));
    const line = (row: string[]) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : column === 3 || column === 4 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
        .join("  ");
    out.write(`${[header, ...rows].map(line).join("\n")}\n`);
    if (total > runs.length) out.write(`… ${total - runs.length} more of ${total} runs not shown; pass --limit to see more.\n`);
  });
}

/** `stepwise runs show <id>`: one run in full; a unique prefix of its id is enough. */
export function runsShow(opts: RunsOptions, id: string, out: NodeJS.WritableStream): Promise<void> {
  return withStores(opts, async (stores) => {
    const run = await namedRun(stores, id);
    const figure = (await runFigures(stores.runs, [run])).get(run.id)!;
    const settings = ((await stores.runs.loadSettings(run.id)) ?? {}) as Record<string, unknown>;
    const checklist = await lastChecklist(stores, run.id);
    const lines = [
      `Run ${run.id}`,
      `Task:      ${run.task}`,
      `Strategy:  ${run.strategy} · model ${run.model}`,
      `Status:    ${statusText(run)}`,
      `Started:   ${utc(run.createdAt)} · last change ${utc(run.updatedAt)} · ${formatDuration(figure.durationMs)} from start to last change`,
      `Used:      ${usageText(figure, run.model)}`,
      ...(Object.keys(settings).length > 0 ? [`Settings:  ${settingsText(settings)}`] : []),
      ...(checklist ? ["", ...checklistLines(checklist)] : []),
      ...(run.answer ? ["", "Answer:", ...run.answer.split("\n").map((line) => `  ${line}`)] : []),
      ...(resumable(run.status) ? ["", `Continue with: stepwise run --resume ${shortIds([run.id])[0]}`] : []),
    ];
    out.write(`${lines.join("\n")}\n`);
  });
}

/** The run's plan as last drawn: its last `checklist-updated` event. */
async function lastChecklist(stores: StoreSet, runId: string): Promise<Checklist | undefined> {
  let last: Checklist | undefined;
  for (let after = 0; ; ) {
    const page = await stores.runs.events(runId, after, 1000);
    if (page.length === 0) return last;
    for (const { seq, event } of page) {
      after = seq;
      if (event.type === "checklist-updated") last = event.checklist;
    }
  }
}

function statusText(run: RunRecord): string {
  // A stopped run's status is its ending's name.
  const ending: RunEnding | undefined = run.status === "running" ? undefined : run.status;
  if (ending) return `${run.status}: ${RUN_ENDINGS[ending].meaning}${run.decided ? "; decisions wait for a driver (stepwise worker)" : ""}`;
  if (run.lease && Date.parse(run.lease.expiresAt) > Date.now()) return `running, driven by ${run.lease.holder} (lease until ${utc(run.lease.expiresAt)})`;
  return "running, but nobody drives it (its driver was killed?): stepwise run --resume or a worker goes on";
}

function resumable(status: RunStatus): boolean {
  return status !== "final";
}

function settingsText(settings: Record<string, unknown>): string {
  return Object.entries(settings)
    .map(([name, value]) => {
      if (name === "mcp" && typeof value === "object" && value !== null) {
        const { servers = {}, configFile } = value as { servers?: Record<string, string>; configFile?: string };
        return `mcp ${[...Object.keys(servers), ...(configFile ? [`config ${configFile}`] : [])].join(", ")}`;
      }
      return `${name} ${typeof value === "string" ? value : JSON.stringify(value)}`;
    })
    .join(" · ");
}

function usageText(figure: RunFigures, model: string): string {
  if (figure.modelCalls === 0) return "no model calls";
  const tokens = (n: number) => n.toLocaleString("en-US");
  const cached = figure.cachedInputTokens > 0 ? ` (${tokens(figure.cachedInputTokens)} cached)` : "";
  const cost =
    figure.costUsd === undefined
      ? `cost n/a (no list price for ${model})`
      : `≈ $${figure.costUsd.toFixed(4)} at list prices${figure.unpricedCalls > 0 ? ` (${figure.unpricedCalls} call(s) of unpriced models left out)` : ""}`;
  return `${figure.modelCalls} model call(s) · ${tokens(figure.inputTokens)} input tokens${cached} + ${tokens(figure.outputTokens)} output · ${cost}`;
}

function costText(figure: RunFigures): string {
  if (figure.modelCalls === 0) return "—";
  return figure.costUsd === undefined ? "n/a" : `$${figure.costUsd.toFixed(figure.costUsd < 1 ? 4 : 2)}`;
}

function utc(iso: string): string {
  return `${iso.slice(0, 19).replace("T", " ")} UTC`;
}

/** Each id cut to `SHORT_ID` characters, or more where that would not tell two of them apart. */
export function shortIds(ids: readonly string[]): string[] {
  return ids.map((id) => {
    let length = SHORT_ID;
    while (length < id.length && ids.some((other) => other !== id && other.startsWith(id.slice(0, length)))) length++;
    return id.slice(0, length);
  });
}
