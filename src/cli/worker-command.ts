import { workRuns } from "../runs/run-worker.js";
import { shutdownSignal } from "../runs/shutdown-signal.js";
import { openRuns, type Runs } from "../runs/runs.js";
import { oneLine } from "./checklist-text.js";
import { modelsFor } from "./model-option.js";
import { cliMcpConnections, cliTools, mcpOptions, openCliStores } from "./run-command.js";

/**
 * `stepwise worker`: drives the runs in the store that need a driver (their own died, or their
 * decisions came from the viewer or the API) until Ctrl-C, printing one line per run. A run whose MCP
 * servers it cannot trust fails to resume here, saying why, and is left for a worker that can.
 */
export async function workerCommand(
  opts: {
    database: string;
    store?: string;
    once: boolean;
    concurrency?: number;
    lease?: number;
    mcp?: Record<string, string>;
    mcpConfig?: string;
    resumeAttempts?: number;
    resumeBackoff?: number;
  },
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<number> {
  const stores = await openCliStores(opts);
  // A run's MCP servers start only as this home signed them or as this worker's own --mcp / --mcp-config has them.
  const mcp = cliMcpConnections(opts.database, io, mcpOptions(opts));
  const runs = openRuns({
    store: stores,
    models: modelsFor,
    tools: cliTools(opts.database, mcp),
    onWarning: (message) => io.stderr.write(`stepwise: ${message}\n`),
    ...(opts.lease !== undefined ? { leaseMs: opts.lease } : {}),
    ...(opts.resumeAttempts !== undefined ? { resumeAttempts: opts.resumeAttempts } : {}),
    ...(opts.resumeBackoff !== undefined ? { resumeBackoffMs: opts.resumeBackoff } : {}),
  });
  const shutdown = shutdownSignal(() => io.stderr.write("stopping the worker: its runs are handed back after their current step (signal again to exit at once)…\n"));
  const many = opts.concurrency !== undefined && opts.concurrency > 1 ? `, up to ${opts.concurrency} runs at once` : "";
  io.stdout.write(`stepwise worker on ${stores.location}${many}${opts.once ? "" : " (Ctrl-C to stop)"}\n`);
  let waiting = "";
  try {
    await workRuns(runs, {
      signal: shutdown.signal,
      once: opts.once,
      ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
      // Said when it changes: what the worker could not take, and what it waits for.
      onIdle: async () => {
        const now = await waitingFor(runs, opts.once);
        if (now !== waiting) io.stdout.write(now);
        waiting = now;
      },
      onRun: async (run, result) => {
        const strategy = oneLine(run.strategy, 40);
        if (!(result instanceof Error)) return void io.stdout.write(`run ${run.id} (${strategy}): ${result.status}\n`);
        // A resume that could not start is counted against the run: say whether it will be tried again.
        const now = await runs.get(run.id).catch(() => undefined);
        const failures = now?.resumeFailures;
        const state = !failures
          ? ""
          : now.status === "failed"
            ? ` (${failures.count} failed resumes in a row: marked failed)`
            : ` (${failures.count} failed resume${failures.count === 1 ? "" : "s"} in a row: tried again after ${failures.retryAt})`;
        io.stdout.write(`run ${run.id} (${strategy}): failed: ${oneLine(result.message.split("\n")[0] ?? "", 1_000)}${state}\n`);
      },
    });
    return 0;
  } finally {
    shutdown.dispose();
    await runs.close();
    await mcp.close();
    await stores.close();
  }
}

/** Runs shown by name in the worker's waiting lines. */
const NAMED = 5;

/** What an idle worker waits for: runs another driver holds (until their lease runs out), and paused runs without decisions. */
async function waitingFor(runs: Runs, once: boolean): Promise<string> {
  const now = Date.now();
  const held = (await runs.stores.runs.findRuns({ status: ["running"], limit: 100 })).runs.filter((run) => run.lease && Date.parse(run.lease.expiresAt) > now);
  const paused = (await runs.stores.runs.findRuns({ status: ["awaiting-user"], limit: 100 })).runs.filter((run) => !run.decided);
  const lines = held.slice(0, NAMED).map(
    (run) =>
      `run ${run.id} (${run.strategy}) is driven by ${run.lease!.holder}; ${once ? "it is left alone" : "taken over if its lease runs out"} (at ${run.lease!.expiresAt.slice(11, 19)} UTC unless renewed)`,
  );
  if (held.length > NAMED) lines.push(`${held.length - NAMED} more runs are driven elsewhere`);
  if (paused.length > 0) lines.push(`${paused.length} paused run(s) wait for decisions (approve them in the viewer: stepwise ui)`);
  const what = once ? "nothing more to drive now" : "waiting for a run whose driver stops, and for decisions made in the viewer";
  return `${[what, ...lines].join("\n  ")}\n`;
}
