import { parseJsonWithinLimits } from "../../../core/argument-limits.js";
import type { AgentEventListener } from "../../../core/events.js";
import type { Message } from "../../../core/messages.js";
import type { ChatModel } from "../../../core/model.js";
import type { PermissionPolicy } from "../../../core/permissions.js";
import { toolResultValue, type Tool, type ToolResult } from "../../../core/tool.js";
import { Toolkit } from "../../../core/toolkit.js";
import { HELD, invokeWithApproval } from "../call-approval.js";
import { referencedVariables, substituteEvidence } from "./evidence-variables.js";
import { requestReply } from "../model-reply.js";
import type { RejectedPlan } from "../plan-approval.js";
import { planRejectedAnswer, rejectedPlanFeedback } from "../plan-approval-prompts.js";
import type { PlanReview } from "../plan-review.js";
import { LLM_WORKER, parseRewooPlan, readEditedRewooPlan, rewooStepLine, type RewooStep } from "./rewoo-plan-parser.js";
import { rewooPlannerPrompt, rewooRetryNote, rewooSolverPrompt } from "./rewoo-prompts.js";
import { toolCatalog } from "../tool-catalog.js";
import type { WorkflowRecorder } from "../workflow-recorder.js";
import { roleModel, type WorkflowModels } from "../workflow-models.js";
import { WorkflowRun } from "../workflow-run.js";
import type { Workflow, WorkflowOutcome, WorkflowRunOptions } from "../workflow.js";
import type { StepRecord } from "../workflow-trace.js";

/** `model` plans, works the LLM steps and solves; `plannerModel`, `executorModel` (the LLM steps) and `solverModel` take over one role (see WorkflowModels). */
export interface RewooOptions extends WorkflowModels<"planner" | "executor" | "solver"> {
  /** @deprecated Use `executorModel` (the same model; the name every workflow's roles follow). */
  workerModel?: ChatModel;
  tools: Tool[];
  name?: string;
  onEvent?: AgentEventListener;
  /**
   * Which steps' tool calls run, wait for the user or are refused, as for an agent's calls. A step
   * that waits pauses the run (stopReason "awaiting-user", the call pending); `run(task, { state,
   * decisions })` goes on: an approved or edited call runs once, a rejected one leaves the rejection as
   * its evidence. Steps already worked are never worked again.
   */
  permissions?: PermissionPolicy;
  /**
   * Puts the plan before the user before any step runs: the run pauses on a pending call of kind
   * "plan" whose steps are the plan's lines (`Plan: <why> #E1 = tool[input]`). Approve it, edit the
   * lines (the edited plan runs; the solver and the trace are told what changed) or reject it with a
   * reason (the planner tries once more; a second rejection runs nothing).
   */
  approvePlans?: boolean;
}

/**
 * What a checkpoint holds of a ReWOO run: the plan once made (no steps when the planner failed), then
 * each step's evidence in order, and which steps left none that later steps can use.
 */
type Progress = {
  plan: { steps: RewooStep[] } | null;
  evidence: [string, string][];
  /**
   * The steps whose result, used by a later step, differs from what the solver reads (read_file's
   * file text beside its numbered lines); absent in checkpoints written before results had values.
   */
  values?: [string, string][];
  unusable: [string, "failed" | "was not run"][];
  /** The planner's conversation, kept while a plan waits for the user: a rejection continues it. */
  planning?: Message[];
};

type Planned = { steps: RewooStep[] | undefined; errors: string[]; durationMs: number };
/** What a plan waiting for the user keeps beside its steps (shown as lines): the plan they came from. */
type ProposalExtras = { plan: RewooStep[]; errors: string[]; durationMs: number };
type Run = WorkflowRun<Progress, ProposalExtras>;

/**
 * ReWOO (reasoning without observation): the planner writes every step at once with #E variables,
 * the worker runs the steps in order with no conversation history, substituting earlier evidence,
 * and a solver answers from the plan and the evidence. Two model calls plan and solve, whatever the
 * number of steps.
 */
export class Rewoo implements Workflow {
  readonly #opts: RewooOptions;
  readonly #toolkit: Toolkit;

  constructor(opts: RewooOptions) {
    // The old name still counts: ignored, it would leave the LLM steps to `model` without a word.
    this.#opts = opts.workerModel && !opts.executorModel ? { ...opts, executorModel: opts.workerModel } : opts;
    this.#toolkit = new Toolkit(opts.tools);
  }

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowOutcome> {
    const run: Run = new WorkflowRun("rewoo", task, opts, { name: this.#opts.name ?? "rewoo", onEvent: this.#opts.onEvent }, () => ({
      plan: null,
      evidence: [],
      unusable: [],
    }));
    return run.ended ?? run.guard(() => this.#drive(run));
  }

  async #drive(run: Run): Promise<WorkflowOutcome> {
    const { task, signal } = run;
    const p = run.progress;
    let edited: RewooStep[] | undefined;
    const reviewed = await run.reviewPlan((lines) => {
      const read = readEditedRewooPlan(lines, this.#toolkit.names);
      if ("error" in read) return read.error;
      edited = read.steps;
      return null;
    });
    switch (reviewed.kind) {
      case "asked-again":
        return reviewed.outcome;
      case "replan": {
        const { rejected } = reviewed;
        const again = await this.#plan(p.planning ?? this.#planning(task), signal, run.recorder, rejectedPlanFeedback(rejected.steps, rejected.feedback));
        if (again.steps) return this.#propose(run, again, reviewed.earlier);
        // The planner failed this time: nothing is left to approve, and the solver answers from the task alone.
        this.#adopt(run, again);
        break;
      }
      case "rejected": {
        const { proposal, review } = reviewed;
        this.#adopt(run, { steps: [], errors: proposal.errors, durationMs: proposal.durationMs }, review);
        return run.end(planRejectedAnswer(review), "no-answer");
      }
      case "approved": {
        const { proposal, review } = reviewed;
        this.#adopt(run, { steps: edited ?? proposal.plan, errors: proposal.errors, durationMs: proposal.durationMs }, review);
        break;
      }
      case "unreviewed":
        break;
    }
    if (reviewed.kind !== "unreviewed") {
      delete p.planning;
      await run.checkpoint();
    }
    if (!p.plan) {
      const planning = this.#planning(task);
      const planned = await this.#plan(planning, signal, run.recorder);
      // A planner that failed leaves nothing to approve: the solver answers from the task alone.
      if (this.#opts.approvePlans && planned.steps) {
        p.planning = planning;
        return this.#propose(run, planned, []);
      }
      this.#adopt(run, planned);
      await run.checkpoint();
    }

    const steps = (p.plan as { steps: RewooStep[] }).steps;
    const evidence = new Map(p.evidence);
    // What a later step's input gets: a result's value where it has one, else the evidence itself.
    const values = new Map([...evidence, ...(p.values ?? [])]);
    // Steps without usable evidence, and what happened to them: a step that needs one is not run,
    // so no tool (a write tool least of all) acts on an error text, and the skip passes down the chain.
    const unusable = new Map(p.unusable);
    for (const step of steps.slice(p.evidence.length)) {
      if (run.stopping) return run.abort();
      const needs = referencedVariables(step.input);
      const end = run.recorder.stepStarted(1, { id: step.id, description: step.description || step.tool, dependsOn: needs });
      const missing = needs.find((variable) => unusable.has(variable));
      let record: StepRecord;
      if (missing !== undefined) {
        const text = `Not run: ${missing}, whose evidence it needs, ${unusable.get(missing)}.`;
        record = end(text, true);
        unusable.set(step.id, "was not run");
        evidence.set(step.id, text);
        values.set(step.id, text);
      } else {
        const result = await this.#work(run, step, substituteEvidence(readJsonInput(step.input), values));
        if (result === HELD) return run.pauseOnHeldCalls();
        // Evidence cut short by the abort is not gathered: a resumed run works the step again.
        if (run.aborted) return run.abort();
        record = end(result.text, result.isError);
        if (result.isError) unusable.set(step.id, "failed");
        // The solver reads what the tool showed; a later step gets what it produced (a file's text, not its numbered lines).
        evidence.set(step.id, result.isError ? `Error: ${result.text}` : result.text);
        values.set(step.id, result.isError ? `Error: ${result.text}` : toolResultValue(result));
      }
      p.evidence = [...evidence];
      const differing = [...values].filter(([id, value]) => evidence.get(id) !== value);
      if (differing.length > 0) p.values = differing;
      p.unusable = [...unusable];
      await run.stepDone(record);
    }

    const reply = await requestReply(
      roleModel(this.#opts, "solver"),
      [{ role: "user", content: rewooSolverPrompt(task, steps, evidence, run.reviewNote) }],
      { events: run.recorder, ...(signal ? { signal } : {}) },
    );
    return run.end(reply.content, "final");
  }

  /** Pauses the run on a plan for the user to review: its steps shown as lines. */
  #propose(run: Run, planned: Planned, earlier: RejectedPlan[]): Promise<WorkflowOutcome> {
    const plan = planned.steps ?? [];
    return run.proposePlan({ steps: plan.map(rewooStepLine), plan, errors: planned.errors, durationMs: planned.durationMs }, earlier);
  }

  /** Records the plan round and makes its steps the ones to work. */
  #adopt(run: Run, planned: Planned, review?: PlanReview): void {
    const p = run.progress;
    const steps = planned.steps ?? [];
    p.plan = { steps };
    run.recorder.planned({
      steps: steps.map((step) => ({ id: step.id, description: step.description || step.tool, dependsOn: referencedVariables(step.input) })),
      errors: planned.errors,
      fallback: planned.steps === undefined,
      durationMs: planned.durationMs,
      ...(review ? { review } : {}),
    });
  }

  #planning(task: string): Message[] {
    return [
      { role: "system", content: rewooPlannerPrompt(toolCatalog(this.#toolkit.all)) },
      { role: "user", content: `Task: ${task}` },
    ];
  }

  /**
   * Continues the planning conversation (with `note`, the user's feedback on a rejected plan) until it
   * yields a plan, with one retry after unusable output.
   */
  async #plan(messages: Message[], signal: AbortSignal | undefined, recorder: WorkflowRecorder, note?: string): Promise<Planned> {
    recorder.planningStarted();
    const started = performance.now();
    if (note) messages.push({ role: "user", content: note });
    const errors: string[] = [];
    const from = messages.length;
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await requestReply(roleModel(this.#opts, "planner"), messages, { tools: this.#toolkit.specs(), events: recorder, ...(signal ? { signal } : {}) });
      const parsed = parseRewooPlan(reply, this.#toolkit.names);
      // Only the reply's text is replayed: its tool calls were a plan, not calls that have results.
      if ("steps" in parsed) {
        messages.splice(from, messages.length, { role: "assistant", content: parsed.steps.map(rewooStepLine).join("\n") });
        return { steps: parsed.steps, errors, durationMs: performance.now() - started };
      }
      errors.push(parsed.error);
      messages.splice(from, messages.length, { role: "assistant", content: reply.content }, { role: "user", content: rewooRetryNote(parsed.error) });
    }
    recorder.planningFailed(errors, "answer-without-steps");
    return { steps: undefined, errors, durationMs: performance.now() - started };
  }

  /** Gathers one step's evidence: the worker model's reply, or the tool's result (HELD while the call waits for the user). */
  async #work(run: Run, step: RewooStep, input: RewooStep["input"]): Promise<ToolResult | typeof HELD> {
    const { signal, recorder } = run;
    if (step.tool === LLM_WORKER) {
      const text = typeof input === "string" ? input : JSON.stringify(input);
      try {
        const reply = await requestReply(roleModel(this.#opts, "executor"), [{ role: "user", content: text }], {
          events: recorder,
          ...(signal ? { signal } : {}),
        });
        return { text: reply.content, isError: false };
      } catch (error) {
        return { text: error instanceof Error ? error.message : String(error), isError: true };
      }
    }
    const tool = this.#toolkit.get(step.tool) as Tool;
    return invokeWithApproval(run, this.#opts.permissions, tool, toToolArguments(tool, input), { round: 1, stepId: step.id, signal });
  }
}

/**
 * A text-form input that is a JSON object (`write_file[{"path": "a.md", "content": "#E1"}]`) is read
 * as the object, so evidence lands inside its strings: pasted into the JSON text, a file's line
 * breaks and quotes would break it.
 */
function readJsonInput(input: RewooStep["input"]): RewooStep["input"] {
  if (typeof input !== "string" || !input.trimStart().startsWith("{")) return input;
  const parsed = parseJsonWithinLimits(input);
  return "value" in parsed && typeof parsed.value === "object" && parsed.value !== null && !Array.isArray(parsed.value) ? (parsed.value as Record<string, unknown>) : input;
}

/**
 * The text form gives a tool one string (`search[capital of France]`). A tool with a single argument
 * receives it as that argument; JSON text is passed as is; anything else lets the tool report what it expects.
 */
function toToolArguments(tool: Tool, input: RewooStep["input"]): unknown {
  if (typeof input !== "string" || input.trimStart().startsWith("{")) return input;
  const properties = Object.keys((tool.parameters as { properties?: object }).properties ?? {});
  return properties.length === 1 ? { [properties[0] as string]: input } : input;
}
