import { z } from "zod";
import type { AgentOptions } from "../../core/agent.js";
import type { AgentEventListener } from "../../core/events.js";
import type { Message } from "../../core/messages.js";
import type { ChatModel } from "../../core/model.js";
import type { Plugin } from "../../core/plugin.js";
import type { Tool } from "../../core/tool.js";
import { readJsonReply } from "./json-reply.js";
import { requestReply } from "./model-reply.js";
import {
  historySummaryPrompt,
  replannerPrompt,
  STEP_EXECUTOR_PROMPT,
  stepExecutorInput,
  stepPlannerPrompt,
  stepPlannerRejectedNote,
  stepPlannerRetryNote,
} from "./plan-and-execute-prompts.js";
import { planWithReview, type PlanApprover, type PlannerAttempt } from "./plan-approval.js";
import { planRejectedAnswer, planReviewNote } from "./plan-approval-prompts.js";
import { runSubAgent, type SubAgentOutcome } from "./sub-agent.js";
import { renderSteps, StepHistory, type CompletedStep } from "./step-history.js";
import { listenerSink, WorkflowRecorder } from "./workflow-recorder.js";
import type { PlannedStep, Workflow, WorkflowResult, WorkflowRunOptions } from "./workflow-trace.js";

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
   * Asks the user about the first plan before any step runs: approve it, edit it (the edited steps run,
   * and the executors and replanner are told what changed) or reject it with feedback (the planner tries
   * once more; a second rejection runs nothing). Replans made while running are not asked about.
   */
  approvePlan?: PlanApprover;
}

const DEFAULT_HISTORY_BUDGET = 2000;

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

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowResult> {
    const { signal } = opts;
    const name = this.#opts.name ?? "plan-and-execute";
    const recorder = new WorkflowRecorder("plan-and-execute", task, listenerSink(name, this.#opts.onEvent), { name, parent: opts.parent });
    const history = new StepHistory(this.#opts.historyTokenBudget ?? DEFAULT_HISTORY_BUDGET, (summary, steps) =>
      this.#summarize(summary, steps, signal, recorder),
    );
    const maxSteps = this.#opts.maxSteps ?? 20;

    const planning: Message[] = [
      { role: "system", content: stepPlannerPrompt(this.#maxPlanSteps) },
      { role: "user", content: `Task: ${task}` },
    ];
    const planned = await planWithReview({
      workflow: "plan-and-execute",
      task,
      approve: this.#opts.approvePlan,
      emit: (event) => recorder.emit(event),
      plan: (rejection) => {
        if (rejection) planning.push({ role: "user", content: stepPlannerRejectedNote(rejection.steps, rejection.feedback) });
        return this.#plan(planning, signal, recorder);
      },
    });
    const { review } = planned;
    let remaining = planned.steps;
    recorder.planned({ ...planned, steps: toPlannedSteps(remaining, 0) });
    if (review?.decision.action === "reject") return recorder.finish(planRejectedAnswer(review));
    const note = review ? planReviewNote(review) : null;
    const done: string[] = [];

    let lastResult = "";
    while (remaining.length > 0 && done.length < maxSteps) {
      const current = remaining[0] as string;
      const plan = [...done, ...remaining];
      const id = String(done.length + 1);
      const end = recorder.stepStarted(recorder.rounds, { id, description: current, dependsOn: done.length > 0 ? [String(done.length)] : [] });
      const outcome = await this.#execute(
        stepExecutorInput({ question: task, plan, doneCount: done.length, history: history.render(), current, review: note }),
        id,
        signal,
        recorder,
      );
      end(outcome.text, outcome.isError);
      lastResult = outcome.isError ? `Error: ${outcome.text}` : outcome.text;
      done.push(current);
      remaining = remaining.slice(1);
      const folded = await history.add({ id, step: current, result: lastResult });
      if (folded) recorder.emit({ type: "workflow-history-summarized", workflow: "plan-and-execute", ...folded });

      if (this.#opts.replan === false || done.length >= maxSteps) continue;
      const replanStarted = performance.now();
      const decision = await this.#replan({ question: task, plan: [...done, ...remaining], doneCount: done.length, history: history.render(), review: note }, signal, recorder);
      if ("answer" in decision) return recorder.finish(decision.answer);
      if ("steps" in decision) remaining = decision.steps;
      recorder.planned({
        steps: toPlannedSteps(remaining, done.length),
        errors: "error" in decision ? [decision.error] : [],
        fallback: "error" in decision,
        durationMs: performance.now() - replanStarted,
      });
    }
    return recorder.finish(lastResult);
  }

  /**
   * Continues the planning conversation (which remembers rejected plans) until it yields steps, with
   * one retry after unusable output; `steps` is undefined when both attempts failed.
   */
  async #plan(messages: Message[], signal: AbortSignal | undefined, recorder: WorkflowRecorder): Promise<PlannerAttempt> {
    recorder.planningStarted();
    const started = performance.now();
    const schema = z.object({ steps: z.array(z.string().trim().min(1)).min(1).max(this.#maxPlanSteps) });
    const errors: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await requestReply(this.#opts.model, messages, { events: recorder, ...(signal ? { signal } : {}) });
      messages.push({ role: "assistant", content: reply.content });
      const read = readJsonReply(reply.content, schema);
      if ("data" in read) return { steps: read.data.steps, errors, durationMs: performance.now() - started };
      errors.push(read.error);
      messages.push({ role: "user", content: stepPlannerRetryNote(read.error) });
    }
    return { errors, durationMs: performance.now() - started };
  }

  /** The replanner's verdict; unusable output keeps the current plan (and answers with the last result if none is left). */
  async #replan(
    input: Parameters<typeof replannerPrompt>[0],
    signal: AbortSignal | undefined,
    recorder: WorkflowRecorder,
  ): Promise<{ answer: string } | { steps: string[] } | { error: string }> {
    recorder.planningStarted();
    const schema = z.union([
      z.object({ answer: z.string().trim().min(1) }),
      z.object({ steps: z.array(z.string().trim().min(1)).min(1).max(this.#maxPlanSteps) }),
    ]);
    const reply = await requestReply(
      this.#opts.model,
      [{ role: "user", content: replannerPrompt(input) }],
      { events: recorder, ...(signal ? { signal } : {}) },
    );
    const read = readJsonReply(reply.content, schema);
    return "data" in read ? read.data : read;
  }

  #execute(input: string, id: string, signal: AbortSignal | undefined, recorder: WorkflowRecorder): Promise<SubAgentOutcome> {
    const agent: AgentOptions = {
      name: `step-${id}`,
      model: this.#opts.executorModel ?? this.#opts.model,
      systemPrompt: STEP_EXECUTOR_PROMPT,
      tools: this.#opts.tools ?? [],
      plugins: this.#opts.executorPlugins?.() ?? [],
      ...(this.#opts.executorMaxSteps ? { maxSteps: this.#opts.executorMaxSteps } : {}),
    };
    return runSubAgent(agent, input, signal, recorder.link(id));
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
