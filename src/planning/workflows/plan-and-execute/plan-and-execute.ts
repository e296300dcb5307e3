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
import { pauseForPlan, reviewProposal, type PlanProposal } from "../plan-approval.js";
import { planRejectedAnswer, planReviewNote, replanRejectedAnswer } from "../plan-approval-prompts.js";
import type { PlanReview } from "../plan-review.js";
import { runStepAgent, type HeldAgent, type StepAgentOutcome } from "../sub-agent.js";
import { renderSteps, StepHistory, type CompletedStep, type StepHistoryState } from "./step-history.js";
import type { WorkflowRecorder } from "../workflow-recorder.js";
import { WorkflowRun } from "../workflow-run.js";
import type { Workflow, WorkflowOutcome, WorkflowRunOptions } from "../workflow.js";
import type { PlannedStep } from "../workflow-trace.js";

export interface PlanAndExecuteOptions {
  /** Plans, replans and summarizes unless the more specific models are given. */
  model: ChatModel;
  executorModel?: ChatModel;
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
   * makes: the run pauses with stopReason "awaiting-approval" and a pending call of kind "plan", and
   * `run(task, { state, decisions })` goes on. Approve it, edit it (the edited steps run, and the
   * executors and replanner are told what changed) or reject it with a reason (the planner tries once
   * more; a second rejection stops the run).
   */
  approvePlans?: boolean;
  /**
   * Which of the executors' tool calls run, wait for the user or are refused (see Agent). A call that
   * waits pauses the run (stopReason "awaiting-approval", the executor's pending calls); `run(task,
   * { state, decisions })` hands the decisions to that executor, which goes on with its own resume.
   * Finished steps are never run again.
   */
  permissions?: PermissionPolicy;
}

const DEFAULT_HISTORY_BUDGET = 2000;

type Planned = { steps: string[]; errors: string[]; fallback: boolean; durationMs: number };

/** A plan waiting for the user; `replan` when the replanner wrote it while the run was under way. */
type Proposal = PlanProposal & Planned & { replan: boolean };

/** What a checkpoint holds of a plan-and-execute run. */
type Progress = {
  /** The planner's conversation, which remembers rejected plans. */
  planning: Message[];
  /** Whether a plan has been settled (made, and approved when approval is asked for). */
  planned: boolean;
  proposal?: Proposal;
  /** Proposals made so far; numbers the pending calls. */
  proposals: number;
  done: string[];
  remaining: string[];
  history: StepHistoryState;
  lastResult: string;
  /** What the user's review changed, for the executors and the replanner. */
  note: string | null;
  /** A step has finished and the replanner has not yet judged it. */
  replanDue: boolean;
  /** The current step's executor, stopped for the user. */
  agent?: HeldAgent;
};

/**
 * Plan-and-Solve with replanning: a planner writes the steps once, an executor agent runs each with
 * the question, the whole plan, the results so far and its own step, and a replanner either answers
 * or rewrites the remaining steps.
 */
export class PlanAndExecute implements Workflow {
  readonly #opts: PlanAndExecuteOptions;
  readonly #maxPlanSteps: number;

  constructor(opts: PlanAndExecuteOptions) {
    this.#opts = opts;
    this.#maxPlanSteps = opts.maxPlanSteps ?? 8;
  }

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowOutcome> {
    const run = new WorkflowRun<Progress>(
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
        proposals: 0,
        done: [],
        remaining: [],
        history: { summary: "", recent: [] },
        lastResult: "",
        note: null,
        replanDue: false,
      }),
    );
    return run.ended ?? run.guard(() => this.#drive(run));
  }

  async #drive(run: WorkflowRun<Progress>): Promise<WorkflowOutcome> {
    const { task, signal } = run;
    const p = run.progress;
    const history = new StepHistory(
      this.#opts.historyTokenBudget ?? DEFAULT_HISTORY_BUDGET,
      (summary, steps) => this.#summarize(summary, steps, signal, run.recorder),
      p.history,
    );
    const maxSteps = this.#opts.maxSteps ?? 20;
    const approves = this.#opts.approvePlans === true;
    const input = () => ({ question: task, plan: [...p.done, ...p.remaining], doneCount: p.done.length, history: history.render(), review: p.note });

    if (run.decision && p.proposal) {
      const proposal = p.proposal;
      const next = reviewProposal(run, proposal, run.decision);
      if ("askAgain" in next) return pauseForPlan(run, proposal, next.askAgain);
      if ("replan" in next) {
        const rejected = proposal.earlier.at(-1) as { steps: string[]; feedback: string };
        const again = proposal.replan
          ? await this.#replanAfterRejection(input(), rejected, signal, run.recorder)
          : await this.#plan(task, p.planning, signal, run.recorder, rejected);
        if ("answer" in again) return run.end(again.answer, "final");
        return this.#propose(run, { ...again, earlier: proposal.earlier, replan: proposal.replan });
      }
      delete p.proposal;
      const [steps, review] = "run" in next ? [next.run, next.review] : [proposal.steps, next.stop];
      this.#adopt(run, proposal, steps, review);
      if ("stop" in next) {
        const text = proposal.replan ? replanRejectedAnswer(next.stop, p.done.length, p.lastResult) : planRejectedAnswer(next.stop);
        return run.end(text, "no-answer");
      }
      await run.checkpoint();
    }

    if (!p.planned && !p.proposal) {
      const planned = await this.#plan(task, p.planning, signal, run.recorder);
      const proposal = { ...planned, earlier: [], replan: false };
      if (approves) return this.#propose(run, proposal);
      this.#adopt(run, proposal, planned.steps);
      await run.checkpoint();
    }

    for (;;) {
      if (run.aborted) return run.abort();
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
          earlier: [],
          replan: true,
        };
        // A replan that keeps the remaining steps as they are has nothing new to approve.
        if (approves && "steps" in decision && !sameSteps(steps, p.remaining)) return this.#propose(run, revised);
        this.#adopt(run, revised, steps);
        await run.checkpoint();
      }
      if (p.remaining.length === 0 || p.done.length >= maxSteps) break;

      const current = p.remaining[0] as string;
      const id = String(p.done.length + 1);
      const end = run.recorder.stepStarted(run.recorder.rounds, { id, description: current, dependsOn: p.done.length > 0 ? [String(p.done.length)] : [] });
      const outcome = await this.#execute(
        run,
        stepExecutorInput({ question: task, plan: [...p.done, ...p.remaining], doneCount: p.done.length, history: history.render(), current, review: p.note }),
        id,
      );
      // A step cut short by the abort is not done: a resumed run does it again.
      if (run.aborted) return run.abort();
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

  /** Pauses the run on a plan for the user to approve. */
  #propose(run: WorkflowRun<Progress>, proposal: Omit<Proposal, "callId">): Promise<WorkflowOutcome> {
    const p = run.progress;
    p.proposal = { ...proposal, callId: `plan-${++p.proposals}` };
    return pauseForPlan(run, p.proposal);
  }

  /** Records a plan (or replan) round and makes its steps the ones to run. */
  #adopt(run: WorkflowRun<Progress>, planned: Omit<Proposal, "callId" | "earlier">, steps: string[], review?: PlanReview): void {
    const p = run.progress;
    p.planned = true;
    p.remaining = steps;
    if (review) p.note = planReviewNote(review) ?? p.note;
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
      const reply = await requestReply(this.#opts.model, messages, { events: recorder, ...(signal ? { signal } : {}) });
      messages.push({ role: "assistant", content: reply.content });
      const read = readJsonReply(reply.content, schema);
      if ("data" in read) return { steps: read.data.steps, errors, fallback: false, durationMs: performance.now() - started };
      errors.push(read.error);
      messages.push({ role: "user", content: stepPlannerRetryNote(read.error) });
    }
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
      this.#opts.model,
      [{ role: "user", content: replannerPrompt(input) }, ...(rejection ? [{ role: "user" as const, content: rejection }] : [])],
      { events: recorder, ...(signal ? { signal } : {}) },
    );
    const read = readJsonReply(reply.content, schema);
    return "data" in read ? read.data : read;
  }

  #execute(run: WorkflowRun<Progress>, input: string, id: string): Promise<StepAgentOutcome> {
    const agent: AgentOptions = {
      name: `step-${id}`,
      model: this.#opts.executorModel ?? this.#opts.model,
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
      this.#opts.summaryModel ?? this.#opts.model,
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
