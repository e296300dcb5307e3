import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentEvent } from "../core/events.js";
import { openSqliteDatabase } from "../stores/sqlite-database.js";
import { SqliteRunLog } from "../stores/sqlite-run-log.js";
import type { RunRecord, RunStatus } from "../stores/run-log.js";
import { workspaceTools } from "../tools/workspace-tools.js";
import { CliError } from "./cli-error.js";
import { modelsFor } from "./model-option.js";
import { observeSession } from "./run-observer.js";
import { liveChecklistView, plainLogView, type RunView } from "./run-view.js";
import { createSession, parseStrategy, type StrategyName } from "./strategies.js";
import type { SessionOutcome, StrategySession } from "./strategy-session.js";
import { checkTaskStore, taskStoreFor } from "./task-store-option.js";
import {
  approvalPolicy,
  askForDecisions,
  parseApprovalMode,
  type ApprovalMode,
  type DecisionPrompter,
} from "./approval-prompt.js";

export type RunCommandOptions = {
  strategy: string;
  model: string;
  workspace: string;
  database: string;
  store?: string;
  board?: string;
  resume?: boolean;
  maxSteps?: number;
  approval?: string;
};

export type RunIO = {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  /** Asks the user about pending calls; absent when nobody can answer. */
  prompter?: DecisionPrompter;
};

const STATUS_BY_STOP: Record<SessionOutcome["stopReason"], RunStatus> = {
  final: "finished",
  "max-steps": "max-steps",
  aborted: "aborted",
  "awaiting-approval": "awaiting-approval",
};

/** `stepwise run`: one task, one strategy, in a workspace; every event and checkpoint goes to the store. */
export async function runCommand(task: string | undefined, opts: RunCommandOptions, io: RunIO): Promise<number> {
  const log = new SqliteRunLog(opts.database);
  try {
    const previous = opts.resume ? lastRun(log.listRuns(1)) : undefined;
    const strategy = parseStrategy(previous?.strategy ?? opts.strategy);
    const modelSpec = previous?.model ?? opts.model;
    const approval = parseApprovalMode(opts.approval ?? "none");
    const theTask = previous?.task ?? task;
    if (!theTask) throw new CliError('a task is required: stepwise run "<task>" (or --resume to continue the last run)');
    const workspace = checkWorkspace(opts.workspace);
    const runId = previous?.id ?? randomUUID();
    const session = await openSession(strategy, { modelSpec, runId, workspace, approval, opts });
    try {
      if (previous) {
        const checkpoint = log.loadCheckpoint(runId);
        if (checkpoint !== undefined) session.restore(checkpoint);
        log.updateRun(runId, { status: "running" });
        io.stdout.write(`resuming run ${runId} (${strategy}): ${theTask}\n`);
      } else {
        log.createRun({ id: runId, task: theTask, strategy, model: modelSpec });
        io.stdout.write(`run ${runId} (${strategy}): ${theTask}\n`);
      }
      return await drive(session, { runId, task: theTask, resume: Boolean(previous), log, io });
    } finally {
      await session.close();
    }
  } finally {
    log.close();
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
  args: { modelSpec: string; runId: string; workspace: string; approval: ApprovalMode; opts: RunCommandOptions },
): Promise<StrategySession> {
  const models = modelsFor(args.modelSpec, strategy);
  const db = openSqliteDatabase(args.opts.database);
  const boardId = args.opts.board ?? args.runId;
  const taskStore = taskStoreFor(args.opts.store, db, boardId);
  if (strategy === "tasks") await checkTaskStore(taskStore, args.opts.store);
  else await taskStore.close();
  const permissions = approvalPolicy(args.approval);
  const session = createSession(strategy, {
    runId: args.runId,
    models,
    tools: workspaceTools(args.workspace),
    db,
    taskStore: () => taskStore,
    ...(permissions ? { permissions } : {}),
    ...(args.opts.maxSteps ? { maxSteps: args.opts.maxSteps } : {}),
  });
  const close = session.close.bind(session);
  session.close = async () => {
    await close();
    db.close();
  };
  return session;
}

type DriveContext = { runId: string; task: string; resume: boolean; log: SqliteRunLog; io: RunIO };

/** Runs the session to its end: records, draws, pauses for approval, stops cleanly on Ctrl-C. */
async function drive(session: StrategySession, ctx: DriveContext): Promise<number> {
  const { log, io, runId } = ctx;
  const view: RunView = io.stdout.isTTY ? liveChecklistView(io.stdout) : plainLogView(io.stdout);
  const observer = observeSession(session, (event: AgentEvent) => {
    log.appendEvent(runId, event);
    if (event.type === "turn-end" || event.type === "run-end") log.saveCheckpoint(runId, session.checkpoint());
    view.event(event);
  });
  const controller = new AbortController();
  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    io.stderr.write("\nstopping after the current step (Ctrl-C again to quit at once)…\n");
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  try {
    const waiting = session.pending();
    let outcome: SessionOutcome =
      waiting.length > 0
        ? { text: "", stopReason: "awaiting-approval", pending: waiting }
        : ctx.resume
          ? await session.continue(ctx.task, controller.signal)
          : await session.run(ctx.task, controller.signal);
    while (outcome.stopReason === "awaiting-approval" && outcome.pending && io.prompter) {
      await observer.settled();
      log.saveCheckpoint(runId, session.checkpoint());
      log.updateRun(runId, { status: "awaiting-approval" });
      const decisions = await askForDecisions(outcome.pending, io.prompter);
      if (!decisions) break;
      outcome = await session.resume(decisions, controller.signal);
    }
    await observer.settled();
    log.saveCheckpoint(runId, session.checkpoint());
    log.updateRun(runId, { status: STATUS_BY_STOP[outcome.stopReason], answer: outcome.stopReason === "final" ? outcome.text : null });
    view.finish(closingLines(outcome, runId));
    return outcome.stopReason === "final" ? 0 : outcome.stopReason === "aborted" ? 130 : 3;
  } catch (error) {
    await observer.settled();
    log.updateRun(runId, { status: "failed" });
    throw error;
  } finally {
    observer.off();
    process.off("SIGINT", onInterrupt);
  }
}

function closingLines(outcome: SessionOutcome, runId: string): string[] {
  switch (outcome.stopReason) {
    case "final":
      return ["", outcome.text];
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
