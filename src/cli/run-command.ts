import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import { openSqliteDatabase } from "../stores/sqlite-database.js";
import { SqliteRunLog } from "../stores/sqlite-run-log.js";
import type { TaskStore } from "../planning/tasks/task-store.js";
import type { RunRecord, RunStatus } from "../stores/run-log.js";
import { workspaceTools } from "../tools/workspace-tools.js";
import { CliError } from "./cli-error.js";
import { exitCodeOf } from "./run-endings.js";
import { storePaths } from "./stepwise-home.js";
import { modelsFor } from "./model-option.js";
import { otlpTracing } from "./otlp-export.js";
import { observeSession } from "./run-observer.js";
import { liveChecklistView, plainLogView, type RunView } from "./run-view.js";
import { checkApprovalMode, createSession, parseStrategy, type StrategyName } from "./strategies.js";
import type { SessionOutcome, StrategySession } from "./strategy-session.js";
import { checkTaskStore, taskStoreFor, urlWithoutPassword } from "./task-store-option.js";
import {
  approvalPolicy,
  approvesPlans,
  askForDecisions,
  parseApprovalMode,
  type ApprovalMode,
  terminalPlanApprover,
  type Approver,
} from "./approval-prompt.js";

/**
 * `stepwise run`'s options. A new run fills what is missing from `RUN_DEFAULTS`; a resumed one from
 * the settings it was started with, so give it only what the user typed.
 */
export type RunCommandOptions = {
  database: string;
  strategy?: string;
  model?: string;
  workspace?: string;
  store?: string;
  board?: string;
  resume?: boolean;
  maxSteps?: number;
  approval?: string;
  contextBudget?: number;
};

export const RUN_DEFAULTS = { strategy: "notebook", model: "openai:gpt-4o-mini", workspace: ".", approval: "none" } as const;

export type RunIO = {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  /** Decides pending calls and plans (the user at the terminal, or decisions given up front); absent when nobody can. */
  approver?: Approver;
  /** Stops the run after the current step, state saved (the viewer shutting down). */
  signal?: AbortSignal;
};

const STATUS_BY_STOP: Record<SessionOutcome["stopReason"], RunStatus> = {
  final: "finished",
  "no-answer": "no-answer",
  "max-steps": "max-steps",
  aborted: "aborted",
  "awaiting-approval": "awaiting-approval",
};

/** How a run was started, kept with it so that a resume (here or in the viewer) rebuilds the same session. */
export type RunSettings = {
  workspace: string;
  approval: ApprovalMode;
  /** A PostgreSQL URL is kept without its password: a resumed run reads it from PGPASSWORD, as libpq does. */
  store?: string;
  board?: string;
  maxSteps?: number;
  contextBudget?: number;
};

/** `stepwise run`: one task, one strategy, in a workspace; every event and checkpoint goes to the store. */
export async function runCommand(task: string | undefined, opts: RunCommandOptions, io: RunIO): Promise<number> {
  const log = new SqliteRunLog(opts.database);
  try {
    const previous = opts.resume ? lastRun(log.listRuns(1)) : undefined;
    const strategy = parseStrategy(previous?.strategy ?? opts.strategy ?? RUN_DEFAULTS.strategy);
    const modelSpec = previous?.model ?? opts.model ?? RUN_DEFAULTS.model;
    const theTask = previous?.task ?? task;
    if (!theTask) throw new CliError('a task is required: stepwise run "<task>" (or --resume to continue the last run)');
    // Runs saved before settings were kept resume with the command line's.
    const saved = previous ? (log.loadSettings(previous.id) as RunSettings | undefined) : undefined;
    const settings = runSettings(opts, saved);
    checkApprovalMode(strategy, settings.approval);
    if (previous) {
      // What was overridden holds from now on, for a later resume here or in the viewer too.
      log.saveSettings(previous.id, withoutSecrets(settings));
      return await continueRun(previous, settings, { log, database: opts.database, io });
    }
    const runId = randomUUID();
    const session = await openSession(strategy, { modelSpec, runId, settings, database: opts.database, approver: io.approver });
    try {
      log.createRun({ id: runId, task: theTask, strategy, model: modelSpec });
      log.saveSettings(runId, withoutSecrets(settings));
      io.stdout.write(`run ${runId} (${strategy}): ${theTask}\n`);
      return await drive(session, { runId, task: theTask, resume: false, log, io });
    } finally {
      await session.close();
    }
  } finally {
    log.close();
  }
}

/** Settings as kept on disk: a store URL without its password. */
function withoutSecrets(settings: RunSettings): RunSettings {
  return settings.store ? { ...settings, store: urlWithoutPassword(settings.store) } : settings;
}

/** The saved settings (or the defaults), with what this command line gives on top. */
function runSettings(given: RunCommandOptions, saved: RunSettings | undefined): RunSettings {
  const base: RunSettings = saved ?? { workspace: RUN_DEFAULTS.workspace, approval: RUN_DEFAULTS.approval };
  return {
    ...base,
    workspace: checkWorkspace(given.workspace ?? base.workspace),
    approval: parseApprovalMode(given.approval ?? base.approval),
    ...(given.store !== undefined ? { store: given.store } : {}),
    ...(given.board !== undefined ? { board: given.board } : {}),
    ...(given.maxSteps ? { maxSteps: given.maxSteps } : {}),
    ...(given.contextBudget ? { contextBudget: given.contextBudget } : {}),
  };
}

/**
 * Continues a run paused for approval with the user's decisions, from its saved state and with the
 * settings it was started with: what the viewer's buttons do. Events and checkpoints are logged as
 * in the terminal; a call that asks again leaves the run paused.
 */
export async function resumeRun(runId: string, decisions: ApprovalDecisions, database: string, io: RunIO): Promise<number> {
  const log = new SqliteRunLog(database);
  try {
    const run = log.getRun(runId);
    if (!run) throw new CliError(`there is no run ${runId} in this store`);
    if (run.status !== "awaiting-approval") throw new CliError(`run ${runId} is ${run.status}, not waiting for approval`);
    const settings = log.loadSettings(runId) as RunSettings | undefined;
    if (!settings) throw new CliError(`run ${runId} has no saved settings; continue it in a terminal with stepwise run --resume`);
    return await continueRun(run, settings, { log, database, io, decisions });
  } finally {
    log.close();
  }
}

/** Rebuilds a run's session from its checkpoint and drives it on (`--resume`, or a decision from the viewer). */
async function continueRun(
  run: RunRecord,
  settings: RunSettings,
  ctx: { log: SqliteRunLog; database: string; io: RunIO; decisions?: ApprovalDecisions },
): Promise<number> {
  const strategy = parseStrategy(run.strategy);
  const session = await openSession(strategy, {
    modelSpec: run.model,
    runId: run.id,
    settings,
    database: ctx.database,
    approver: ctx.io.approver,
  });
  try {
    const checkpoint = ctx.log.loadCheckpoint(run.id);
    if (checkpoint !== undefined) session.restore(checkpoint);
    ctx.log.updateRun(run.id, { status: "running" });
    ctx.io.stdout.write(`resuming run ${run.id} (${strategy}): ${run.task}\n`);
    return await drive(session, {
      runId: run.id,
      task: run.task,
      resume: true,
      log: ctx.log,
      io: ctx.io,
      ...(ctx.decisions ? { decisions: ctx.decisions } : {}),
    });
  } finally {
    await session.close();
  }
}

function lastRun(runs: RunRecord[]): RunRecord {
  const run = runs[0];
  if (!run) throw new CliError("there is no run to resume in this store; start one with stepwise run \"<task>\"");
  if (run.status === "finished") throw new CliError(`the last run (${run.id}) already finished; nothing to resume`);
  return run;
}

function checkWorkspace(path: string): string {
  const root = resolve(path);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    throw new CliError(`workspace ${root} does not exist; pass an existing folder with --workspace`);
  }
  if (!isDir) throw new CliError(`workspace ${root} is a file; pass a folder with --workspace`);
  return root;
}

async function openSession(
  strategy: StrategyName,
  args: { modelSpec: string; runId: string; settings: RunSettings; database: string; approver: Approver | undefined },
): Promise<StrategySession> {
  const { settings } = args;
  const models = modelsFor(args.modelSpec, strategy);
  const db = openSqliteDatabase(args.database);
  let openStore: TaskStore | undefined;
  // A failure here must not leave the file open: the viewer lives on after a resume fails.
  try {
    const taskStore = taskStoreFor(settings.store, db, settings.board ?? args.runId);
    if (strategy === "tasks") {
      await checkTaskStore(taskStore, settings.store);
      openStore = taskStore;
    } else await taskStore.close();
    const permissions = approvalPolicy(settings.approval);
    const session = createSession(strategy, {
      runId: args.runId,
      models,
      tools: workspaceTools(settings.workspace, { protectedPaths: { hidden: storePaths(args.database) } }),
      db,
      taskStore: () => taskStore,
      ...(permissions ? { permissions } : {}),
      ...(approvesPlans(settings.approval) ? { approvePlan: terminalPlanApprover(args.approver) } : {}),
      ...(settings.maxSteps ? { maxSteps: settings.maxSteps } : {}),
      ...(settings.contextBudget ? { contextBudget: settings.contextBudget } : {}),
    });
    const close = session.close.bind(session);
    session.close = async () => {
      await close();
      db.close();
    };
    return session;
  } catch (error) {
    await openStore?.close().catch(() => undefined);
    db.close();
    throw error;
  }
}

type DriveContext = {
  runId: string;
  task: string;
  resume: boolean;
  log: SqliteRunLog;
  io: RunIO;
  /** Decisions for the calls the restored run waits on (from the viewer); otherwise the approver decides. */
  decisions?: ApprovalDecisions;
};

/** Runs the session to its end: records, draws, pauses for approval, stops cleanly on Ctrl-C. */
async function drive(session: StrategySession, ctx: DriveContext): Promise<number> {
  const { log, io, runId } = ctx;
  const view: RunView = io.stdout.isTTY ? liveChecklistView(io.stdout, io.stderr) : plainLogView(io.stdout, io.stderr);
  const tracing = otlpTracing(process.env, io.stderr);
  const record = (event: AgentEvent) => {
    tracing?.onEvent(event);
    log.appendEvent(runId, event);
    if (event.type === "turn-end" || event.type === "run-end") log.saveCheckpoint(runId, session.checkpoint());
    view.event(event);
  };
  const observer = observeSession(session, record, (error) => {
    const reason = error instanceof Error ? error.message : String(error);
    io.stderr.write(`stepwise: could not record a step of the run (${reason.split("\n")[0]}); it goes on, but its log may miss events\n`);
  });
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) process.exit(exitCodeOf("aborted"));
    view.notice("stopping after the current step (Ctrl-C again to quit at once)…\n");
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  const stopFromOutside = () => controller.abort();
  io.signal?.addEventListener("abort", stopFromOutside, { once: true });
  try {
    const waiting = session.pending();
    let outcome: SessionOutcome =
      waiting.length > 0
        ? ctx.decisions
          ? await session.resume(ctx.decisions, controller.signal)
          : { text: "", stopReason: "awaiting-approval", pending: waiting }
        : ctx.resume
          ? await session.continue(ctx.task, controller.signal)
          : await session.run(ctx.task, controller.signal);
    while (outcome.stopReason === "awaiting-approval" && outcome.pending && io.approver) {
      await observer.settled();
      log.saveCheckpoint(runId, session.checkpoint());
      log.updateRun(runId, { status: "awaiting-approval" });
      const decisions = await askForDecisions(outcome.pending, io.approver);
      if (!decisions) break;
      outcome = await session.resume(decisions, controller.signal);
    }
    await observer.settled();
    log.saveCheckpoint(runId, session.checkpoint());
    log.updateRun(runId, { status: STATUS_BY_STOP[outcome.stopReason], answer: outcome.stopReason === "final" ? outcome.text : null });
    view.finish(closingLines(outcome, runId));
    return exitCodeOf(outcome.stopReason === "final" ? "answered" : outcome.stopReason);
  } catch (error) {
    await observer.settled();
    log.updateRun(runId, { status: "failed" });
    throw error;
  } finally {
    observer.off();
    await tracing?.shutdown();
    process.off("SIGINT", onInterrupt);
    io.signal?.removeEventListener("abort", stopFromOutside);
  }
}

function closingLines(outcome: SessionOutcome, runId: string): string[] {
  switch (outcome.stopReason) {
    case "final":
      return ["", outcome.text];
    case "no-answer":
      return ["", `no answer: ${outcome.text}`];
    case "aborted":
      return ["", `stopped; state saved. Continue with: stepwise run --resume   (run ${runId})`];
    case "max-steps":
      return ["", `stopped at the step limit; state saved. Continue with: stepwise run --resume   (run ${runId})`];
    case "awaiting-approval":
      return [
        "",
        `waiting for approval of: ${(outcome.pending ?? []).map((c) => c.name).join(", ")}; state saved.`,
        "Approve in the viewer (stepwise ui) or run stepwise run --resume in a terminal.",
      ];
  }
}
