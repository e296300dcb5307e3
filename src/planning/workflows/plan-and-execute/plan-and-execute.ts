import { z } from "zod";
import type { AgentOptions } from "../../../core/agent.js";
import type { AgentEventListener } from "../../../core/events.js";
import type { Message } from "../../../core/messages.js";
import type { ChatModel } from "../../../core/model.js";
import type { PermissionPolicy } from "../../../core/permissions.js";
import type { Plugin } from "../../../core/plugin.js";
import type { Tool } from "../../../core/tool.js";
import { readJsonReply } from "../json-reply.js";
import { requestReply } from "../model-reply.js";
import {
  historySummaryPrompt,
  replannerPrompt,
  STEP_EXECUTOR_PROMPT,
  stepExecutorInput,
  stepPlannerPrompt,
  stepPlannerRejectedNote,
  stepPlannerRetryNote,
} from "./plan-and-execute-prompts.js";
import { planRejectedAnswer, replanRejectedAnswer } from "../plan-approval-prompts.js";
import type { PlanReview } from "../plan-review.js";
import { runStepAgent, type HeldAgent, type StepAgentOutcome } from "../sub-agent.js";
import { renderSteps, StepHistory, type CompletedStep, type StepHistoryState } from "./step-history.js";
import type { WorkflowRecorder } from "../workflow-recorder.js";
import { roleModel, type WorkflowModels } from "../workflow-models.js";
import { WorkflowRun } from "../workflow-run.js";
import type { Workflow, WorkflowOutcome, WorkflowRunOptions } from "../workflow.js";
import type { PlannedStep } from "../workflow-trace.js";

/** `model` plans, replans, executes and summarizes; `plannerModel`, `executorModel` and `summarizerModel` take over one role (see WorkflowModels). */
export interface PlanAndExecuteOptions extends WorkflowModels<"planner" | "executor" | "summarizer"> {
  /** @deprecated Use `summarizerModel` (the same model; the name every workflow's roles follow). */
  summaryModel?: ChatModel;
  /** The tools each step's executor agent may call. */
  tools?: Tool[];
  /**
   * Plugins for each step's executor agent, made afresh for every step (an executor is a new agent,
   * and a plugin such as `contextFolding()` follows one agent's history), e.g. `() => [contextFolding()]`.
   */
  executorPlugins?: () => Plugin[];
  /** Ask a replanner after each step for the final answer or the remaining steps (default true). */
  replan?: boolean;
  /** Once the steps-done history passes this many estimated tokens, older steps are summarized (default 2000). */
  historyTokenBudget?: number;
  /** Most steps in one plan (default 8). */
  maxPlanSteps?: number;
  /** Most steps executed in one run, replans included (default 20). */
  maxSteps?: number;
  executorMaxSteps?: number;
  name?: string;
  onEvent?: AgentEventListener;
  /**
   * Puts every plan before the user before it runs, the first one and each revision the replanner
   * makes: the run pauses with stopReason "awaiting-user" and a pending call of kind "plan", and
   * `run(task, { state, decisions })` goes on. Approve it, edit it (the edited steps run, and the
   * executors and replanner are told what changed) or reject it with a reason (the planner tries once
   * more; a second rejection stops the run).
   */
  approvePlans?: boolean;
  /**
   * Which of the executors' tool calls run, wait for the user or are refused (see Agent). A call that
   * waits pauses the run (stopReason "awaiting-user", the executor's pending calls); `run(task,
   * { state, decisions })` hands the decisions to that executor, which goes on with its own resume.
   * Finished steps are never run again.
   */
  permissions?: PermissionPolicy;
}

const DEFAULT_HISTORY_BUDGET = 2000;

type Planned = { steps: string[]; errors: string[]; fallback: boolean; durationMs: number };

/** What a plan waiting for the user keeps beside its steps; `replan` when the replanner wrote it while the run was under way. */
type ProposalExtras = Omit<Planned, "steps"> & { replan: boolean };

/** What a checkpoint holds of a plan-and-execute run. */
type Progress = {
  /** The planner's conversation, which remembers rejected plans. */
  planning: Message[];
  /** Whether a plan has been settled (made, and approved when approval is asked for). */
  planned: boolean;
  done: string[];
  remaining: string[];
  history: StepHistoryState;
  lastResult: string;
  /** A step has finished and the replanner has not yet judged it. */
  replanDue: boolean;
  /** The current step's executor, stopped for the user. */
  agent?: HeldAgent;
};

type Run = WorkflowRun<Progress, ProposalExtras>;

/**
 * Plan-and-Solve with replanning: a planner writes the steps once, an executor agent runs each with
 * the question, the whole plan, the results so far and its own step, and a replanner either answers
 * or rewrites the remaining steps.
 */
export class PlanAndExecute implements Workflow {
  readonly #opts: PlanAndExecuteOptions;
  readonly #maxPlanSteps: number;

  constructor(opts: PlanAndExecuteOptions) {
    // The old name still counts: ignored, it would leave summaries to `model` without a word.
    this.#opts = opts.summaryModel && !opts.summarizerModel ? { ...opts, summarizerModel: opts.summaryModel } : opts;
    this.#maxPlanSteps = opts.maxPlanSteps ?? 8;
  }

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowOutcome> {
    const run: Run = new WorkflowRun(
      "plan-and-execute",
      task,
      opts,
      { name: this.#opts.name ?? "plan-and-execute", onEvent: this.#opts.onEvent },
      () => ({
        planning: [
          { role: "system", content: stepPlannerPrompt(this.#maxPlanSteps) },
          { role: "user", content: `Task: ${task}` },
        ],
        planned: false,
        done: [],
        remaining: [],
        history: { summary: "", recent: [] },
        lastResult: "",
        replanDue: false,
      }),
    );
    return run.ended ?? run.guard(() => this.#drive(run));
  }

  async #drive(run: Run): Promise<WorkflowOutcome> {
    const { task, signal } = run;
    const p = run.progress;
    const history = new StepHistory(
      this.#opts.historyTokenBudget ?? DEFAULT_HISTORY_BUDGET,
      (summary, steps) => this.#summarize(summary, steps, signal, run.recorder),
      p.history,
    );
    const maxSteps = this.#opts.maxSteps ?? 20;
    const approves = this.#opts.approvePlans === true;
    const input = () => ({ question: task, plan: [...p.done, ...p.remaining], doneCount: p.done.length, history: history.render(), review: run.reviewNote });

    const reviewed = await run.reviewPlan();
    switch (reviewed.kind) {
      case "asked-again":
        return reviewed.outcome;
      case "replan": {
        const { proposal, rejected } = reviewed;
        const again = proposal.replan
          ? await this.#replanAfterRejection(input(), rejected, signal, run.recorder)
          : await this.#plan(task, p.planning, signal, run.recorder, rejected);
        if ("answer" in again) return run.end(again.answer, "final");
        return run.proposePlan({ ...again, replan: proposal.replan }, reviewed.earlier);
      }
      case "rejected": {
        const { proposal, review } = reviewed;
        this.#adopt(run, proposal, proposal.steps, review);
        const text = proposal.replan ? replanRejectedAnswer(review, p.done.length, p.lastResult) : planRejectedAnswer(review);
        return run.end(text, "no-answer");
      }
      case "approved":
        this.#adopt(run, reviewed.proposal, reviewed.steps, reviewed.review);
        await run.checkpoint();
        break;
      case "unreviewed":
        break;
    }

    if (!p.planned) {
      const planned = await this.#plan(task, p.planning, signal, run.recorder);
      if (approves) return run.proposePlan({ ...planned, replan: false });
      this.#adopt(run, planned, planned.steps);
      await run.checkpoint();
    }

    for (;;) {
      if (run.stopping) return run.abort();
      if (p.replanDue) {
        const replanStarted = performance.now();
        const decision = await this.#replan(input(), signal, run.recorder);
        if ("answer" in decision) return run.end(decision.answer, "final");
        p.replanDue = false;
        const steps = "steps" in decision ? decision.steps : p.remaining;
        const revised = {
          steps,
          errors: "error" in decision ? [decision.error] : [],
          fallback: "error" in decision,
          durationMs: performance.now() - replanStarted,
          replan: true,
        };
        // A replan that keeps the remaining steps as they are has nothing new to approve.
        if (approves && "steps" in decision && !sameSteps(steps, p.remaining)) return run.proposePlan(revised);
        this.#adopt(run, revised, steps);
        await run.checkpoint();
      }
      if (p.remaining.length === 0 || p.done.length >= maxSteps) break;

      const current = p.remaining[0] as string;
      const id = String(p.done.length + 1);
      const end = run.recorder.stepStarted(run.recorder.rounds, { id, description: current, dependsOn: p.done.length > 0 ? [String(p.done.length)] : [] });
      const outcome = await this.#execute(
        run,
        stepExecutorInput({ question: task, plan: [...p.done, ...p.remaining], doneCount: p.done.length, history: history.render(), current, review: run.reviewNote }),
        id,
      );
      // A step cut short (the run stopped) is not done: a resumed run goes on with its agent.
      if (run.aborted || "stopped" in outcome) return run.abort();
      if ("pending" in outcome) return run.pause(outcome.pending);
      const record = end(outcome.text, outcome.isError);
      p.lastResult = outcome.isError ? `Error: ${outcome.text}` : outcome.text;
      const folded = await history.add({ id, step: current, result: p.lastResult });
      if (folded) run.recorder.emit({ type: "workflow-history-summarized", workflow: "plan-and-execute", ...folded });
      p.history = history.state;
      p.done.push(current);
      p.remaining = p.remaining.slice(1);
      p.replanDue = this.#opts.replan !== false && p.done.length < maxSteps;
      await run.stepDone(record);
    }
    return run.end(p.lastResult, p.remaining.length > 0 ? "max-steps" : "final");
  }

  /** Records a plan (or replan) round and makes its steps the ones to run. */
  #adopt(run: Run, planned: Omit<Planned, "steps">, steps: string[], review?: PlanReview): void {
    const p = run.progress;
    p.planned = true;
    p.remaining = steps;
    run.recorder.planned({
      steps: toPlannedSteps(steps, p.done.length),
      errors: planned.errors,
      fallback: planned.fallback,
      durationMs: planned.durationMs,
      ...(review ? { review } : {}),
    });
  }

  /** The replanner's verdict on a revised plan the user rejected, given their feedback. */
  async #replanAfterRejection(
    input: Parameters<typeof replannerPrompt>[0],
    rejected: { steps: string[]; feedback: string },
    signal: AbortSignal | undefined,
    recorder: WorkflowRecorder,
  ): Promise<{ answer: string } | Planned> {
    const started = performance.now();
    const decision = await this.#replan(input, signal, recorder, stepPlannerRejectedNote(rejected.steps, rejected.feedback));
    const durationMs = performance.now() - started;
    if ("answer" in decision) return decision;
    if ("steps" in decision) return { steps: decision.steps, errors: [], fallback: false, durationMs };
    return { steps: rejected.steps, errors: [decision.error], fallback: true, durationMs };
  }

  /**
   * Continues the planning conversation (which remembers rejected plans) until it yields steps, with
   * one retry after unusable output; when both attempts fail, the task is the only step.
   */
  async #plan(
    task: string,
    messages: Message[],
    signal: AbortSignal | undefined,
    recorder: WorkflowRecorder,
    rejected?: { steps: string[]; feedback: string },
  ): Promise<Planned> {
    recorder.planningStarted();
    if (rejected) messages.push({ role: "user", content: stepPlannerRejectedNote(rejected.steps, rejected.feedback) });
    const started = performance.now();
    const schema = z.object({ steps: z.array(z.string().trim().min(1)).min(1).max(this.#maxPlanSteps) });
    const errors: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await requestReply(roleModel(this.#opts, "planner"), messages, { events: recorder, ...(signal ? { signal } : {}) });
      messages.push({ role: "assistant", content: reply.content });
      const read = readJsonReply(reply.content, schema);
      if ("data" in read) return { steps: read.data.steps, errors, fallback: false, durationMs: performance.now() - started };
      errors.push(read.error);
      messages.push({ role: "user", content: stepPlannerRetryNote(read.error) });
    }
    recorder.planningFailed(errors, "task-as-one-step");
    return { steps: [task], errors, fallback: true, durationMs: performance.now() - started };
  }

  /**
   * The replanner's verdict; unusable output keeps the current plan (and answers with the last result
   * if none is left). `rejection` tells it why the user refused its last revision.
   */
  async #replan(
    input: Parameters<typeof replannerPrompt>[0],
    signal: AbortSignal | undefined,
    recorder: WorkflowRecorder,
    rejection?: string,
  ): Promise<{ answer: string } | { steps: string[] } | { error: string }> {
    recorder.planningStarted();
    const schema = z.union([
      z.object({ answer: z.string().trim().min(1) }),
      z.object({ steps: z.array(z.string().trim().min(1)).min(1).max(this.#maxPlanSteps) }),
    ]);
    const reply = await requestReply(
      roleModel(this.#opts, "planner"),
      [{ role: "user", content: replannerPrompt(input) }, ...(rejection ? [{ role: "user" as const, content: rejection }] : [])],
      { events: recorder, ...(signal ? { signal } : {}) },
    );
    const read = readJsonReply(reply.content, schema);
    if ("data" in read) return read.data;
    recorder.planningFailed([read.error], "keep-remaining-steps");
    return read;
  }

  #execute(run: Run, input: string, id: string): Promise<StepAgentOutcome> {
    const agent: AgentOptions = {
      name: `step-${id}`,
      model: roleModel(this.#opts, "executor"),
      systemPrompt: STEP_EXECUTOR_PROMPT,
      tools: this.#opts.tools ?? [],
      plugins: this.#opts.executorPlugins?.() ?? [],
      ...(this.#opts.executorMaxSteps ? { maxSteps: this.#opts.executorMaxSteps } : {}),
      ...(this.#opts.permissions ? { permissions: this.#opts.permissions } : {}),
    };
    return runStepAgent(run, id, agent, input);
  }

  async #summarize(previous: string, steps: readonly CompletedStep[], signal: AbortSignal | undefined, recorder: WorkflowRecorder): Promise<string> {
    const budget = this.#opts.historyTokenBudget ?? DEFAULT_HISTORY_BUDGET;
    const reply = await requestReply(
      roleModel(this.#opts, "summarizer"),
      [
        { role: "system", content: historySummaryPrompt(Math.max(20, Math.floor(budget * 0.35))) },
        { role: "user", content: `Earlier summary: ${previous || "(none)"}\n\nCompleted steps:\n${renderSteps(steps)}` },
      ],
      { events: recorder, ...(signal ? { signal } : {}) },
    );
    return reply.content;
  }
}

function toPlannedSteps(steps: readonly string[], doneCount: number): PlannedStep[] {
  return steps.map((description, i) => {
    const position = doneCount + i + 1;
    return { id: String(position), description, dependsOn: position > 1 ? [String(position - 1)] : [] };
  });
}

function sameSteps(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((step, i) => step === b[i]);
}
