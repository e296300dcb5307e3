import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../core/events.js";
import { addUsage, type Usage } from "../core/model.js";
import { estimateCostUsd } from "../models/model-prices.js";
import type { RunOutcome } from "../runs/run-driver.js";
import type { StoreSet } from "../runs/store-set.js";
import { openRuns } from "../runs/runs.js";
import type { ModelsByRole, StrategyName } from "../runs/strategies.js";
import { workspaceTools } from "../tools/workspace-tools.js";
import { boundedText } from "../core/bounded-quote.js";
import { corpusTools } from "./corpus-tools.js";
import type { EvalTask } from "./eval-task.js";
import { runCheck } from "./task-check.js";
import { machineFailure } from "./machine-failure.js";
import { MACHINE_FAILURE, type TrialOutcome, type TrialRecord } from "./trial-record.js";

export type TrialPlan = { task: EvalTask; strategy: StrategyName; trial: number };

type TrialContext = {
  stores: StoreSet;
  /** The model spec the records name. */
  model: string;
  models: ModelsByRole;
  scripted: boolean;
  /** Aborts the trial (the token budget is spent): it is then not recorded, and runs again on resume. */
  signal: AbortSignal;
  /** Each model call's usage, as it happens (for the budget). */
  onUsage: (usage: Usage) => void;
};

/**
 * One trial: a fresh temporary workspace from the task's setup/, a run of the strategy through the
 * run layer (recorded in the eval's store), then the task's check on what the run left. Returns
 * undefined when the trial was aborted before it ended. When the machine failed it (the disk or the
 * store full: see machineFailure, or a step of its run that could not be recorded, which leaves its
 * figures short), the record says so: it is not counted, and runs again.
 */
export async function runTrial(plan: TrialPlan, ctx: TrialContext): Promise<TrialRecord | undefined> {
  const { task, strategy } = plan;
  const started = Date.now();
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let steps = 0;
  let runId: string | null = null;
  const record = (ended: { outcome: TrialRecord["outcome"]; reason: string }): TrialRecord => {
    const cost = estimateCostUsd(ctx.model, usage);
    return {
      scripted: ctx.scripted,
      model: ctx.model,
      strategy,
      task: task.id,
      trial: plan.trial,
      runId,
      ...ended,
      steps,
      inputTokens: usage.inputTokens,
      cachedInputTokens: usage.cacheReadInputTokens ?? 0,
      outputTokens: usage.outputTokens,
      costUsd: cost ?? null,
      wallMs: Date.now() - started,
      finishedAt: new Date().toISOString(),
    };
  };
  const machine = (reason: string) => record({ outcome: MACHINE_FAILURE, reason: boundedText(reason) });
  let workspace: string | undefined;
  try {
    workspace = await mkdtemp(join(tmpdir(), `stepwise-eval-${task.id}-`));
    if (task.setupDir) await cp(task.setupDir, workspace, { recursive: true });
    const tools = [...workspaceTools(workspace), ...(task.corpusDir ? corpusTools(task.corpusDir) : [])];
    let unrecorded: string | undefined;
    const runs = openRuns({ store: ctx.stores, models: () => ctx.models, tools: () => tools, onWarning: (message) => (unrecorded ??= message) });
    const onEvent = (event: AgentEvent) => {
      if (event.type !== "model-end") return;
      steps++;
      usage = addUsage(usage, event.usage);
      if (event.usage) ctx.onUsage(event.usage);
    };
    let ended: { outcome: TrialRecord["outcome"]; reason: string };
    try {
      const handle = await runs.start({
        task: task.prompt,
        strategy,
        model: ctx.model,
        settings: { workspace, maxSteps: task.maxSteps },
        signal: ctx.signal,
        onEvent,
      });
      runId = handle.id;
      const outcome = await handle.done;
      if (outcome.stopReason === "aborted") return undefined;
      ended = await judge(task, workspace, outcome);
    } catch (error) {
      if (ctx.signal.aborted) return undefined;
      const failed = machineFailure(error);
      if (failed) return machine(failed);
      ended = { outcome: "error", reason: boundedText((error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "") };
    } finally {
      await runs.close();
    }
    return unrecorded ? machine(unrecorded) : record(ended);
  } catch (error) {
    const failed = machineFailure(error);
    if (failed) return machine(failed);
    throw error;
  } finally {
    if (workspace) await rm(workspace, { recursive: true, force: true });
  }
}

/**
 * How the run ended, as the eval counts it: an answer is checked (passed or wrong-answer); a run
 * that paused for the user or ended without an answer gave up; the step limit is its own kind.
 */
async function judge(task: EvalTask, workspace: string, outcome: RunOutcome): Promise<{ outcome: TrialOutcome; reason: string }> {
  switch (outcome.stopReason) {
    case "final": {
      const check = await runCheck(task, workspace, outcome.text);
      return { outcome: check.passed ? "passed" : "wrong-answer", reason: check.reason };
    }
    case "max-steps":
      return { outcome: "max-steps", reason: `stopped at the step limit (${task.maxSteps} model calls)` };
    case "awaiting-user": {
      const asked = (outcome.pending ?? []).map((c) => c.name).join(", ");
      return { outcome: "gave-up", reason: `stopped to ask the user (${asked || "a pending call"}); nobody answers in an eval` };
    }
    case "no-answer":
      return { outcome: "gave-up", reason: boundedText(`ended without an answer: ${outcome.text}`) };
    case "aborted":
      return { outcome: "error", reason: "the run was stopped" };
  }
}
