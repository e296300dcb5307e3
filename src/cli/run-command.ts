import type { AgentEvent } from "../core/events.js";
import type { Tool } from "../core/tool.js";
import { workspaceTools } from "../tools/workspace-tools.js";
import { RunBusyError, RunLeaseLostError, RunNotFoundError, type RunRecord } from "../stores/run-store.js";
import type { RunOutcome } from "../runs/run-driver.js";
import { RunInputError } from "../runs/run-input-error.js";
import { dirname } from "node:path";
import { mergeSettings, type RunSettings } from "../runs/run-settings.js";
import { checkStores, openStores, StoreUnreachableError, type RunStores } from "../runs/run-stores.js";
import { openRuns, type RunHandle, type Runs } from "../runs/runs.js";
import { parseApprovalMode } from "../runs/approval-mode.js";
import { CliError } from "./cli-error.js";
import { modelsFor } from "./model-option.js";
import { storePaths } from "./stepwise-home.js";
import { otlpTracing } from "./otlp-export.js";
import { liveChecklistView, plainLogView, type RunView } from "./run-view.js";
import { askForDecisions, type Approver } from "./approval-prompt.js";
import { exitCodeOf } from "./run-endings.js";
import { mcpConfigPath, McpConnections } from "./mcp-servers.js";

/**
 * `stepwise run`'s options. A new run fills what is missing from `RUN_DEFAULTS`; a resumed one from
 * the settings it was started with, so give it only what the user typed.
 */
export type RunCommandOptions = {
  /** The embedded SQLite file, used unless `store` names another. */
  database: string;
  strategy?: string;
  model?: string;
  workspace?: string;
  /** Where runs, plans and boards live: sqlite (the file above) or postgres://… */
  store?: string;
  board?: string;
  /** true: the last run; a string: that run. */
  resume?: boolean | string;
  maxSteps?: number;
  approval?: string;
  contextBudget?: number;
  /** `--mcp`: MCP servers by name, each a command line or URL. */
  mcp?: Record<string, string>;
  /** `--mcp-config`: a file of MCP servers in the `{"mcpServers": …}` shape. */
  mcpConfig?: string;
};

export const RUN_DEFAULTS = { strategy: "notebook", model: "openai:gpt-4o-mini", workspace: ".", approval: "none" } as const;

export type RunIO = {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  /** Decides pending calls and plans (the user at the terminal, or decisions given up front); absent when nobody can. */
  approver?: Approver;
};

/** `--store`: the SQLite file by default, or the PostgreSQL database it names. */
function storeLocation(opts: { database: string; store?: string }): string {
  return opts.store === undefined || opts.store === "sqlite" ? opts.database : opts.store;
}

/**
 * A run's tools in the CLI: the workspace tools, which never open the CLI's own store folder (wherever
 * STEPWISE_HOME puts it), and the tools of the MCP servers its settings name, connected through `mcp`.
 */
export function cliTools(database: string, mcp: McpConnections): (settings: RunSettings) => Promise<Tool[]> {
  return async (settings) => [...workspaceTools(settings.workspace, { protectedPaths: { hidden: storePaths(database) } }), ...(await mcp.toolsFor(settings.mcp))];
}

/** The command's MCP connections: OAuth state in the Stepwise home, links to authorize on stderr. */
export function cliMcpConnections(database: string, io: { stdout: NodeJS.WritableStream & { isTTY?: boolean }; stderr: NodeJS.WritableStream }): McpConnections {
  return new McpConnections({ home: dirname(database), announce: (text) => void io.stderr.write(text), interactive: io.stdout.isTTY === true });
}

/** Opens the stores once for the whole command, and fails in one line when they cannot be reached. */
export async function openCliStores(opts: { database: string; store?: string }): Promise<RunStores> {
  const stores = await cliErrors(() => openStores(storeLocation(opts)));
  try {
    await checkStores(stores);
  } catch (error) {
    await stores.close().catch(() => undefined);
    throw cliError(error);
  }
  return stores;
}

/** `stepwise run`: one task, one strategy, in a workspace; every event and checkpoint goes to the store. */
export async function runCommand(task: string | undefined, opts: RunCommandOptions, io: RunIO): Promise<number> {
  const stores = await openCliStores(opts);
  const mcp = cliMcpConnections(opts.database, io);
  // The run's MCP servers are connected before it starts, so one that cannot be reached leaves no failed run behind.
  const connect = async (settings: RunSettings) => void (await mcp.toolsFor(settings.mcp));
  const runs = openRuns({
    store: stores,
    models: modelsFor,
    tools: cliTools(opts.database, mcp),
    onWarning: (message) => io.stderr.write(`stepwise: ${message}\n`),
  });
  try {
    const view: RunView = io.stdout.isTTY ? liveChecklistView(io.stdout, io.stderr) : plainLogView(io.stdout, io.stderr);
    const stopping = interruptible(view);
    const tracing = otlpTracing(process.env, io.stderr);
    try {
      const onEvent = (event: AgentEvent) => {
        tracing?.onEvent(event);
        view.event(event);
      };
      const drive = { signal: stopping.signal, onEvent };
      const handle = await cliErrors(async () => {
        if (opts.resume) {
          const previous = await runToResume(runs, opts.resume);
          io.stdout.write(`resuming run ${previous.id} (${previous.strategy}): ${previous.task}\n`);
          const given = givenSettings(opts);
          await connect(mergeSettings(given, (await stores.runs.loadSettings(previous.id)) as RunSettings | undefined));
          return runs.resume(previous.id, undefined, { ...drive, settings: given });
        }
        if (!task) throw new CliError('a task is required: stepwise run "<task>" (or --resume to continue the last run)');
        const settings = { workspace: RUN_DEFAULTS.workspace, ...givenSettings(opts) };
        await connect(mergeSettings(settings, undefined));
        const started = await runs.start({
          task,
          strategy: opts.strategy ?? RUN_DEFAULTS.strategy,
          model: opts.model ?? RUN_DEFAULTS.model,
          settings,
          ...drive,
        });
        io.stdout.write(`run ${started.id} (${started.strategy}): ${started.task}\n`);
        return started;
      });
      const outcome = await askUntilDone(runs, handle, io, drive);
      view.finish(closingLines(outcome));
      return exitCodeOf(outcome.stopReason === "final" ? "answered" : outcome.stopReason);
    } finally {
      stopping.off();
      await tracing?.shutdown();
    }
  } finally {
    await runs.close();
    await mcp.close();
    await stores.close();
  }
}

/** What this command line sets; the rest comes from the run's saved settings (or the defaults). */
function givenSettings(opts: RunCommandOptions): Partial<RunSettings> {
  return {
    ...(opts.workspace !== undefined ? { workspace: opts.workspace } : {}),
    ...(opts.approval !== undefined ? { approval: parseApprovalMode(opts.approval) } : {}),
    ...(opts.board !== undefined ? { board: opts.board } : {}),
    ...(opts.maxSteps ? { maxSteps: opts.maxSteps } : {}),
    ...(opts.contextBudget ? { contextBudget: opts.contextBudget } : {}),
    ...(opts.mcp || opts.mcpConfig ? { mcp: { servers: opts.mcp ?? {}, ...(opts.mcpConfig ? { configFile: mcpConfigPath(opts.mcpConfig) } : {}) } } : {}),
  };
}

/** While the run waits for a decision and someone at the terminal can give it, asks and drives on. */
async function askUntilDone(
  runs: Runs,
  first: RunHandle,
  io: RunIO,
  drive: { signal: AbortSignal; onEvent: (event: AgentEvent) => void },
): Promise<RunOutcome> {
  let outcome = await cliErrors(() => first.done);
  while (outcome.stopReason === "awaiting-approval" && outcome.pending && io.approver && !drive.signal.aborted) {
    const decisions = await askForDecisions(outcome.pending, io.approver);
    if (!decisions) break;
    const next = await cliErrors(() => runs.resume(outcome.runId, decisions, drive));
    outcome = await cliErrors(() => next.done);
  }
  return outcome;
}

async function runToResume(runs: Runs, which: true | string): Promise<RunRecord> {
  if (typeof which === "string") {
    const run = await runs.get(which);
    if (!run) throw new CliError(`there is no run ${which} in this store; list them in the viewer (stepwise ui)`);
    return run;
  }
  const run = (await runs.list(1))[0];
  if (!run) throw new CliError('there is no run to resume in this store; start one with stepwise run "<task>"');
  if (run.status === "finished") throw new CliError(`the last run (${run.id}) already finished; nothing to resume`);
  return run;
}

/** Ctrl-C stops the run after the current step, state saved; a second one quits at once. */
function interruptible(view: RunView): { signal: AbortSignal; off(): void } {
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) process.exit(exitCodeOf("aborted"));
    view.notice("stopping after the current step (Ctrl-C again to quit at once)…\n");
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  return { signal: controller.signal, off: () => process.off("SIGINT", onInterrupt) };
}

/** The run layer's errors a user can act on, as one line with the CLI's exit code. */
function cliError(error: unknown): unknown {
  if (error instanceof RunInputError || error instanceof RunNotFoundError) return new CliError(error.message);
  if (error instanceof RunBusyError || error instanceof RunLeaseLostError || error instanceof StoreUnreachableError) {
    return new CliError(error.message, exitCodeOf("failed"));
  }
  return error;
}

async function cliErrors<T>(body: () => T | Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    throw cliError(error);
  }
}

function closingLines(outcome: RunOutcome): string[] {
  const runId = outcome.runId;
  switch (outcome.stopReason) {
    case "final":
      return ["", outcome.text];
    case "no-answer":
      return ["", `no answer: ${outcome.text}`];
    case "aborted":
      return ["", `stopped; state saved. Continue with: stepwise run --resume ${runId}`];
    case "max-steps":
      return ["", `stopped at the step limit; state saved. Continue with: stepwise run --resume ${runId}`];
    case "awaiting-approval":
      return [
        "",
        `waiting for approval of: ${(outcome.pending ?? []).map((c) => c.name).join(", ")}; state saved.`,
        `Approve in the viewer (stepwise ui) or run stepwise run --resume ${runId} in a terminal.`,
      ];
  }
}
