import * as restate from "@restatedev/restate-sdk";
import { z } from "zod";
import { approvalDecisionSchema, checkDecisions, type ApprovalDecisions, type PendingCall } from "../../core/approval.js";
import { boundedQuote } from "../../core/bounded-quote.js";
import type { ChatModel } from "../../core/model.js";
import type { Tool } from "../../core/tool.js";
import { resolveModel } from "../../models/model-spec.js";
import type { Checklist } from "../../runs/checklist.js";
import { observeSession } from "../../runs/run-observer.js";
import { STATUS_BY_STOP } from "../../runs/run-driver.js";
import { RunInputError } from "../../runs/run-input-error.js";
import { mergeSettings, sessionSettings, type RunSettings } from "../../runs/run-settings.js";
import type { StoreSet } from "../../runs/store-set.js";
import { createSession, parseStrategy, type ModelsByRole, type StrategyName } from "../../runs/strategies.js";
import type { SessionOutcome, StrategySession } from "../../runs/strategy-session.js";
import type { RunStatus } from "../../stores/run-store.js";
import { workspaceTools } from "../../tools/workspace-tools.js";
import { JournalClock, journaledModel, journaledTool } from "./journaled-calls.js";
import { journaledTaskStore } from "./journaled-task-store.js";
import { JournalSteps } from "./journal-steps.js";
import { RestateRunLog } from "./restate-run-log.js";

/** The Restate workflow's name when none is given. */
export const RESTATE_RUN_SERVICE = "StepwiseRun";

/** What starts a run: the `run` handler's input (the workflow's key is the run's id). */
export type RestateRunInput = {
  task: string;
  /** Default "todos". */
  strategy?: string;
  /** A model spec, resolved in the service process by its `models` (or `resolveModel`). */
  model: string;
  settings?: Partial<RunSettings>;
};

/** How the run ended: the `run` handler's output. */
export type RestateRunResult = { runId: string; status: RunStatus; text: string };

/** A run waiting for the user: the awakeable its decisions resolve, and the calls they are for. */
export type RestatePause = {
  awakeable: string;
  calls: PendingCall[];
  /** Why the decisions given last were not taken (the run waits for better ones). */
  refused?: string;
};

/** The `status` handler's answer: the plan as it stands, and what the run waits for. */
export type RestateRunStatus = { plan: Checklist | null; pause: RestatePause | null };

export type RestateRunServiceOptions = {
  /** The workflow's name in Restate (default `StepwiseRun`). */
  name?: string;
  /** Where the runs' records and events go, for the viewer and the CLI (`stepwise ui --store`). */
  stores: StoreSet;
  /** Models for a run's model spec (default: `resolveModel`, one model for every role). */
  models?: (spec: string, strategy: StrategyName) => ModelsByRole;
  /** The tools a run gets (default: the workspace tools of its workspace). */
  tools?: (settings: RunSettings) => Tool[] | Promise<Tool[]>;
  /** Restate's options for the workflow (timeouts, retry policy, retention). */
  options?: restate.WorkflowOptions;
  /** A step of a run that could not be recorded in the store; the run goes on. */
  onWarning?: (message: string) => void;
};

const decisionsSchema = z.record(z.string(), approvalDecisionSchema);

/**
 * Stepwise runs as a Restate workflow: an invocation of `run` (keyed by the run's id) is the run.
 * Every model call, tool call and task-board read or write is a journaled step, so Restate can retry the invocation anywhere
 * (another process, after a kill) and the replay takes every finished call from the journal. A call
 * waiting for approval parks the run on an awakeable; `decide` resolves it. The run's record and
 * events go to a Stepwise run store, where the viewer follows it like any other run.
 */
export function restateRunService(opts: RestateRunServiceOptions) {
  return restate.workflow({
    name: opts.name ?? RESTATE_RUN_SERVICE,
    handlers: {
      run: (ctx: restate.WorkflowContext, input: RestateRunInput): Promise<RestateRunResult> => driveRun(ctx, input, opts),

      /** Decisions for every call the run waits on, by call id: the run goes on with them. */
      decide: async (ctx: restate.WorkflowSharedContext, decisions: unknown): Promise<void> => {
        const pause = await ctx.get<RestatePause>("pause");
        if (!pause) throw new restate.TerminalError(`run ${ctx.key} is not waiting for a decision`, { errorCode: 409 });
        const read = readDecisions(pause.calls, decisions);
        if ("problem" in read) throw new restate.TerminalError(read.problem, { errorCode: 400 });
        ctx.resolveAwakeable(pause.awakeable, read.decisions);
      },

      status: async (ctx: restate.WorkflowSharedContext): Promise<RestateRunStatus> => ({
        plan: await ctx.get<Checklist>("plan"),
        pause: await ctx.get<RestatePause>("pause"),
      }),
    },
    ...(opts.options ? { options: opts.options } : {}),
  });
}

async function driveRun(ctx: restate.WorkflowContext, input: RestateRunInput, opts: RestateRunServiceOptions): Promise<RestateRunResult> {
  const runId = ctx.key;
  const { strategy, settings, models } = readInput(input, opts);
  const log = await RestateRunLog.open(opts.stores.runs, { id: runId, task: input.task, strategy, model: input.model }, settings, `restate:${ctx.request().id}`);
  const steps = new JournalSteps(ctx);
  const tools = ((await opts.tools?.(settings)) ?? workspaceTools(settings.workspace)).map((tool) => journaledTool(steps, tool));
  // The ids and times the plugins draw come from the journal, so a replay rebuilds the same plans.
  const clock = new JournalClock(await ctx.date.now());
  let warned = false;
  const warn = (error: unknown) => {
    if (warned) return;
    warned = true;
    opts.onWarning?.(`could not record a step of run ${runId} (${error instanceof Error ? error.message.split("\n")[0] : String(error)}); it goes on, but its log may miss events`);
  };
  // The plan is state of the workflow, set at the run's checkpoints: points its code reaches in the
  // same order on every replay, so the journal's commands come in the same order too.
  const publishPlan = async () => ctx.set("plan", await session.checklist());
  const session: StrategySession = createSession(strategy, {
    runId,
    models: (role) => journaledModel(steps, models(role), { clock }),
    tools,
    taskStore: () => journaledTaskStore(steps, opts.stores.board(settings.board ?? runId)),
    ids: () => ctx.rand.uuidv4(),
    clock: () => clock.now(),
    checkpoint: publishPlan,
    ...sessionSettings(settings),
  });
  const observer = observeSession(session, (event) => log.append(event), warn);
  let outcome: SessionOutcome;
  try {
    outcome = await driveSession(ctx, session, input.task, log, observer, publishPlan);
  } catch (error) {
    await observer.settled();
    await log.update({ status: "failed" }).catch(() => undefined);
    await log.release().catch(() => undefined);
    // A replay would fail the same way: retrying cannot help.
    throw new restate.TerminalError(`run ${runId} failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    observer.off();
    await session.close().catch(() => undefined);
  }
  // A store that fails here fails the attempt, and Restate's retry records the ending again.
  const status = STATUS_BY_STOP[outcome.stopReason];
  await log.update({ status, answer: outcome.stopReason === "final" ? outcome.text : null });
  await log.release();
  return { runId, status, text: outcome.text };
}

/** Runs the session to its end, parking on an awakeable each time it stops for the user. */
async function driveSession(
  ctx: restate.WorkflowContext,
  session: StrategySession,
  task: string,
  log: RestateRunLog,
  observer: { settled(): Promise<void> },
  publishPlan: () => Promise<void>,
): Promise<SessionOutcome> {
  // Restate retries the invocation after any stop, so nothing here aborts the run itself.
  const signal = new AbortController().signal;
  let outcome = await session.run(task, signal);
  while (outcome.stopReason === "awaiting-user") {
    await observer.settled();
    // A replay passes the pauses it had before: their statuses are in the store already.
    if (!log.replaying) await log.update({ status: "awaiting-user" });
    await publishPlan();
    const decisions = await awaitDecisions(ctx, outcome.pending ?? session.pending());
    if (!log.replaying) await log.update({ status: "running" });
    outcome = await session.resume(decisions, signal);
  }
  await publishPlan();
  await observer.settled();
  return outcome;
}

/** The run's strategy, settings and models; what is wrong with the input fails the invocation for good. */
function readInput(input: RestateRunInput, opts: RestateRunServiceOptions): { strategy: StrategyName; settings: RunSettings; models: ModelsByRole } {
  try {
    if (typeof input?.task !== "string" || !input.task.trim()) throw new RunInputError("a run needs a task: say what the agent should do");
    if (typeof input.model !== "string" || !input.model) throw new RunInputError("a run needs a model spec, such as openai:gpt-4o-mini");
    const strategy = parseStrategy(input.strategy ?? "todos");
    const settings = mergeSettings(input.settings ?? {}, undefined);
    if (opts.models) return { strategy, settings, models: opts.models(input.model, strategy) };
    const model: ChatModel = resolveModel(input.model);
    return { strategy, settings, models: () => model };
  } catch (error) {
    throw new restate.TerminalError(error instanceof Error ? error.message : String(error), { errorCode: 400 });
  }
}

/**
 * Parks the run on an awakeable until decisions for exactly `calls` arrive. Decisions that do not fit
 * (they can be sent to the awakeable directly, past `decide`) are refused, and the run waits again.
 */
async function awaitDecisions(ctx: restate.WorkflowContext, calls: PendingCall[]): Promise<ApprovalDecisions> {
  let refused: string | undefined;
  for (;;) {
    const awakeable = ctx.awakeable<unknown>();
    ctx.set<RestatePause>("pause", { awakeable: awakeable.id, calls, ...(refused ? { refused } : {}) });
    const read = readDecisions(calls, await awakeable.promise);
    if ("decisions" in read) {
      ctx.clear("pause");
      return read.decisions;
    }
    refused = read.problem;
  }
}

function readDecisions(calls: PendingCall[], value: unknown): { decisions: ApprovalDecisions } | { problem: string } {
  const parsed = decisionsSchema.safeParse(value);
  if (!parsed.success) {
    const got = boundedQuote(JSON.stringify(value) ?? String(value), 200);
    return { problem: `decisions must be an object of call id to {"action": "approve" | "edit" | "reject" | "answer", …}; got ${got}` };
  }
  const decisions = parsed.data as ApprovalDecisions;
  try {
    checkDecisions(calls, decisions);
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
  return { decisions };
}
