import { ABORTED, raceAbort } from "../core/abort.js";
import { DecisionsError, type PendingCall } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import type { Tool } from "../core/tool.js";
import { workspaceTools } from "../tools/workspace-tools.js";
import { RunBusyError, RunLeaseLostError, RunNotFoundError, type RunRecord } from "../stores/run-store.js";
import type { RunOutcome } from "../runs/run-driver.js";
import { ModelUnavailableError, RunInputError } from "../runs/run-input-error.js";
import type { ExternalDriver } from "../runs/external-driver.js";
import { loggedPendingCalls } from "../runs/logged-pending-calls.js";
import { dirname } from "node:path";
import { mergeSettings, type RunMcpServers, type RunSettings } from "../runs/run-settings.js";
import { checkStores, openStores, StoreMissingError, StoreUnreachableError, type StoreSet } from "../runs/store-set.js";
import { openRuns, type RunHandle, type Runs } from "../runs/runs.js";
import { namedRun } from "./named-run.js";
import { parseApprovalMode } from "../runs/approval-mode.js";
import { parseStrategy } from "../runs/strategies.js";
import { CliError } from "./cli-error.js";
import { modelsFor, OFFLINE_HINT } from "./model-option.js";
import { storePaths } from "./stepwise-home.js";
import { otlpTracing } from "./otlp-export.js";
import { liveChecklistView, plainLogView, type RunView } from "./run-view.js";
import { askForDecisions, type Approver } from "./approval-prompt.js";
import { restateDriverFor } from "./restate-ingress.js";
import { exitCodeOf } from "./run-endings.js";
import { oneLine } from "./checklist-text.js";
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
  /** The option that decides up front what waits for approval (`--decisions`, `--approve-all`), if one was given. */
  decidedBy?: string;
  /** `--restate-ingress`: a resumed run that a Restate invocation holds gets its decisions through this ingress. */
  restateIngress?: string;
};

/** A run's task on its first line: the whole task is in the store, and a stored one may be anyone's. */
const TASK_SHOWN = 300;

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

/**
 * The command's MCP connections: OAuth state and the signing key in the Stepwise home, links to
 * authorize on stderr; `own`, the servers this command was given (`--mcp`, `--mcp-config`).
 */
export function cliMcpConnections(
  database: string,
  io: { stdout: NodeJS.WritableStream & { isTTY?: boolean }; stderr: NodeJS.WritableStream },
  own?: RunMcpServers,
): McpConnections {
  return new McpConnections({ home: dirname(database), announce: (text) => void io.stderr.write(text), interactive: io.stdout.isTTY === true, ...(own ? { own } : {}) });
}

/** The servers of `--mcp` and `--mcp-config`, as given (credentials included); undefined when there are none. */
export function mcpOptions(opts: { mcp?: Record<string, string>; mcpConfig?: string }): RunMcpServers | undefined {
  if (!opts.mcp && !opts.mcpConfig) return undefined;
  return { servers: opts.mcp ?? {}, ...(opts.mcpConfig ? { configFile: mcpConfigPath(opts.mcpConfig) } : {}) };
}

/**
 * Opens the stores once for the whole command, and fails in one line when they cannot be reached. A
 * command that only reads passes `mustExist`: a SQLite file that is not there is named, never made.
 */
export async function openCliStores(opts: { database: string; store?: string; mustExist?: boolean }): Promise<StoreSet> {
  const stores = await cliErrors(() => openStores(storeLocation(opts), { mustExist: opts.mustExist === true }));
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
  // Before anything opens: a URL that is not one is refused in one line.
  const restate = opts.restateIngress === undefined ? undefined : { url: opts.restateIngress, driver: await restateDriverFor(opts.restateIngress) };
  const stores = await openCliStores(opts);
  const given = mcpOptions(opts);
  const mcp = cliMcpConnections(opts.database, io, given);
  // The run's MCP servers are connected before it starts, so one that cannot be reached leaves no failed run behind.
  const connect = async (settings: RunSettings) => void (await mcp.toolsFor(settings.mcp));
  const runs = openRuns({
    store: stores,
    models: modelsFor,
    tools: cliTools(opts.database, mcp),
    externalDrivers: restate ? [restate.driver] : [],
    onWarning: (message) => io.stderr.write(`stepwise: ${message}\n`),
  });
  try {
    if (opts.resume && restate) {
      const sent = await cliErrors(() => decideOnRestate(runs, restate, opts.resume as true | string, io));
      if (sent !== undefined) return sent;
    }
    const view: RunView = io.stdout.isTTY ? liveChecklistView(io.stdout, io.stderr) : plainLogView(io.stdout, io.stderr);
    const stopping = interruptible(view);
    const tracing = otlpTracing(process.env, io.stderr);
    try {
      // The run's first events (a workflow's "planning…") wait until its "run <id>" line is out.
      let held: AgentEvent[] | undefined = [];
      const onEvent = (event: AgentEvent) => {
        tracing?.onEvent(event);
        if (held) held.push(event);
        else view.event(event);
      };
      const header = (line: string) => {
        io.stdout.write(`${line}\n`);
        for (const event of held ?? []) view.event(event);
        held = undefined;
      };
      const drive = { signal: stopping.signal, onEvent };
      const handle = await cliErrors(async () => {
        if (opts.resume) {
          const previous = await runToResume(runs, opts.resume);
          const saved = (await stores.runs.loadSettings(previous.id)) as RunSettings | undefined;
          // Servers given again go on top of the saved ones; the whole is signed only if the saved part can be trusted.
          const kept = given && mcp.keep(given);
          const merged = kept && mergeSettings({ mcp: kept }, saved).mcp;
          const settings = { ...givenSettings(opts), ...(kept && merged ? { mcp: mcp.endorse(merged, saved?.mcp, kept) } : {}) };
          const effective = mergeSettings(settings, saved);
          checkDecidedUpFront(opts.decidedBy, effective);
          header(`resuming run ${previous.id} (${previous.strategy}): ${oneLine(previous.task, TASK_SHOWN)}`);
          await connect(effective);
          return runs.resume(previous.id, undefined, { ...drive, settings });
        }
        if (!task) throw new CliError('a task is required: stepwise run "<task>" (or --resume to continue the last run)');
        const settings = { workspace: RUN_DEFAULTS.workspace, ...givenSettings(opts), ...(given ? { mcp: mcp.keep(given) } : {}) };
        const merged = mergeSettings(settings, undefined);
        checkDecidedUpFront(opts.decidedBy, merged);
        await connect(merged);
        const started = await runs
          .start({ task, strategy: parseStrategy(opts.strategy ?? RUN_DEFAULTS.strategy), model: opts.model ?? RUN_DEFAULTS.model, settings, ...drive })
          .catch((error: unknown) => {
            throw error instanceof ModelUnavailableError ? new CliError(`${error.message} ${OFFLINE_HINT}`) : error;
          });
        header(`run ${started.id} (${started.strategy}): ${oneLine(started.task, TASK_SHOWN)}`);
        return started;
      });
      const outcome = await askUntilDone(runs, handle, io, drive);
      view.finish(closingLines(outcome));
      const stoppedBy = stopping.by();
      if (stoppedBy && outcome.stopReason !== "final") return exitCodeOf(STOPPED_BY[stoppedBy].ending);
      return exitCodeOf(outcome.stopReason);
    } finally {
      stopping.off();
      await tracing?.shutdown();
    }
  } finally {
    // On the way out after an error too: a run still being driven stops after its step, state saved.
    await runs.close({ stop: true });
    await mcp.close();
    await stores.close();
  }
}

/** What this command line sets, MCP servers aside (kept by McpConnections); the rest comes from the run's saved settings (or the defaults). */
function givenSettings(opts: RunCommandOptions): Partial<RunSettings> {
  return {
    ...(opts.workspace !== undefined ? { workspace: opts.workspace } : {}),
    ...(opts.approval !== undefined ? { approval: parseApprovalMode(opts.approval) } : {}),
    ...(opts.board !== undefined ? { board: opts.board } : {}),
    ...(opts.maxSteps ? { maxSteps: opts.maxSteps } : {}),
    ...(opts.contextBudget ? { contextBudget: opts.contextBudget } : {}),
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
  while (outcome.stopReason === "awaiting-user" && outcome.pending && io.approver && !drive.signal.aborted) {
    // Ctrl-C at the prompt stops asking: the run stays paused, as saved.
    const decisions = await raceAbort(askForDecisions(outcome.pending, io.approver), drive.signal);
    if (!decisions || decisions === ABORTED) break;
    const next = await cliErrors(() => runs.resume(outcome.runId, decisions, drive));
    outcome = await cliErrors(() => next.done);
  }
  return outcome;
}

/**
 * `--resume` of a paused run that a Restate invocation holds: its decisions (from the approver, as for
 * a run resumed here) go to Restate, which drives the run on; the exit code, or undefined for a run
 * Restate does not hold (resumed here as any other).
 */
async function decideOnRestate(runs: Runs, restate: { url: string; driver: ExternalDriver }, which: true | string, io: RunIO): Promise<number | undefined> {
  const run = await runToResume(runs, which);
  const holder = run.lease?.holder;
  if (run.status !== "awaiting-user" || holder === undefined || !restate.driver.holds(holder)) return undefined;
  const pending = await loggedPendingCalls(runs.stores.runs, run.id);
  // An approver that cannot decide (a --decisions file that does not fit) has said why: the run stays paused.
  const decisions = io.approver && (await askForDecisions(pending, io.approver));
  if (!decisions) return exitCodeOf("awaiting-user");
  let sent: boolean;
  try {
    sent = await runs.decideExternally(run.id, decisions);
  } catch (error) {
    if (error instanceof RunInputError || error instanceof DecisionsError) throw error;
    throw new CliError(`could not send the decisions for run ${run.id} to Restate at ${restate.url}: ${sendFailure(error)}`, exitCodeOf("failed"));
  }
  if (!sent) throw new CliError(`run ${run.id} is no longer held by Restate; see where it stands with stepwise runs show ${run.id}`, exitCodeOf("failed"));
  io.stdout.write(`decisions for run ${run.id} sent to Restate at ${restate.url}, which drives the run on (stepwise runs show ${run.id})\n`);
  return 0;
}

/** Why a request did not get through, in one line: fetch says only "fetch failed", its cause says why. */
function sendFailure(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return (cause instanceof Error ? cause.message : String(cause)).split("\n")[0] ?? "";
}

/** The run `--resume` names (its id or a unique prefix of it), or the last one. */
async function runToResume(runs: Runs, which: true | string): Promise<RunRecord> {
  const where = `the store ${runs.stores.location}`;
  if (typeof which === "string") return namedRun(runs.stores, which);
  const run = (await runs.list(1))[0];
  if (!run) throw new CliError(`there is no run to resume in ${where}; start one with stepwise run "<task>"`);
  if (run.status === "final") throw new CliError(`the last run (${run.id}) already finished; nothing to resume`);
  return run;
}

/** Decisions given up front with nothing that can wait for them would be ignored: refused instead, before anything runs. */
function checkDecidedUpFront(option: string | undefined, settings: RunSettings): void {
  if (option === undefined || settings.approval !== "none") return;
  throw new CliError(`${option} decides what waits for approval, but nothing waits without --approval writes, plan or all; add one, or leave ${option} out`);
}

const STOPPED_BY = { SIGINT: { ending: "aborted", again: "Ctrl-C again" }, SIGTERM: { ending: "terminated", again: "a second SIGTERM" } } as const;
type StopSignal = keyof typeof STOPPED_BY;

/**
 * Ctrl-C (or SIGTERM, as a service manager stops a process) stops the run after the current step,
 * state saved, and the closing line says how to go on; a second one quits at once.
 */
function interruptible(view: RunView): { signal: AbortSignal; off(): void; by(): StopSignal | undefined } {
  const controller = new AbortController();
  let by: StopSignal | undefined;
  const handlers = (Object.keys(STOPPED_BY) as StopSignal[]).map((signal) => {
    const handler = () => {
      if (by !== undefined) process.exit(exitCodeOf(STOPPED_BY[signal].ending));
      by = signal;
      view.notice(`stopping after the current step (${STOPPED_BY[signal].again} to quit at once)…\n`);
      controller.abort();
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return { signal: controller.signal, off: () => handlers.forEach((off) => off()), by: () => by };
}

/** The run layer's errors a user can act on, as one line with the CLI's exit code. */
function cliError(error: unknown): unknown {
  if (error instanceof StoreMissingError) {
    return new CliError(`${error.message}: nothing has run here yet. Start a run with stepwise run "<task>", or point --store or STEPWISE_HOME at a store`);
  }
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
    case "awaiting-user":
      return [
        "",
        `waiting for ${waitingFor(outcome.pending ?? [])}; state saved.`,
        `Approve in the viewer (stepwise ui) or run stepwise run --resume ${runId} in a terminal.`,
      ];
  }
}

/** What a paused run waits for, by the kind of each pending call: a question waits for an answer, not an approval. */
function waitingFor(pending: readonly PendingCall[]): string {
  const names = (calls: readonly PendingCall[]) => oneLine(calls.map((c) => oneLine(c.name, 64)).join(", "), 300);
  const questions = pending.filter((call) => call.kind === "question");
  const decisions = pending.filter((call) => call.kind !== "question");
  const parts = [...(decisions.length > 0 ? [`approval of: ${names(decisions)}`] : []), ...(questions.length > 0 ? [`an answer to: ${names(questions)}`] : [])];
  return parts.join(", and for ") || "a decision";
}
