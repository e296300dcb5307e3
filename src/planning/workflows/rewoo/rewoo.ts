import type { AgentEventListener } from "../../../core/events.js";
import type { Message } from "../../../core/messages.js";
import type { ChatModel } from "../../../core/model.js";
import type { Tool } from "../../../core/tool.js";
import { Toolkit } from "../../../core/toolkit.js";
import { referencedVariables, substituteEvidence } from "./evidence-variables.js";
import { requestReply } from "../model-reply.js";
import { LLM_WORKER, parseRewooPlan, type RewooStep } from "./rewoo-plan-parser.js";
import { rewooPlannerPrompt, rewooRetryNote, rewooSolverPrompt } from "./rewoo-prompts.js";
import { toolCatalog } from "../tool-catalog.js";
import type { WorkflowRecorder } from "../workflow-recorder.js";
import { WorkflowRun } from "../workflow-run.js";
import type { Workflow, WorkflowOutcome, WorkflowRunOptions } from "../workflow.js";
import type { StepRecord } from "../workflow-trace.js";

export interface RewooOptions {
  /** Plans, and also works the LLM steps and solves unless `workerModel` / `solverModel` are given. */
  model: ChatModel;
  workerModel?: ChatModel;
  solverModel?: ChatModel;
  tools: Tool[];
  name?: string;
  onEvent?: AgentEventListener;
}

/**
 * What a checkpoint holds of a ReWOO run: the plan once made (no steps when the planner failed), then
 * each step's evidence in order, and which steps left none that later steps can use.
 */
type Progress = { plan: { steps: RewooStep[] } | null; evidence: [string, string][]; unusable: [string, "failed" | "was not run"][] };

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
    this.#opts = opts;
    this.#toolkit = new Toolkit(opts.tools);
  }

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowOutcome> {
    const run = new WorkflowRun<Progress>("rewoo", task, opts, { name: this.#opts.name ?? "rewoo", onEvent: this.#opts.onEvent }, () => ({
      plan: null,
      evidence: [],
      unusable: [],
    }));
    return run.ended ?? run.guard(() => this.#drive(run));
  }

  async #drive(run: WorkflowRun<Progress>): Promise<WorkflowOutcome> {
    const { task, signal } = run;
    const p = run.progress;
    if (!p.plan) {
      const planStarted = performance.now();
      run.recorder.planningStarted();
      const { steps, errors } = await this.#plan(task, signal, run.recorder);
      run.recorder.planned({
        steps: (steps ?? []).map((step) => ({
          id: step.id,
          description: step.description || step.tool,
          dependsOn: referencedVariables(step.input),
        })),
        errors,
        fallback: steps === undefined,
        durationMs: performance.now() - planStarted,
      });
      p.plan = { steps: steps ?? [] };
      await run.checkpoint();
    }

    const steps = p.plan.steps;
    const evidence = new Map(p.evidence);
    // Steps without usable evidence, and what happened to them: a step that needs one is not run,
    // so no tool (a write tool least of all) acts on an error text, and the skip passes down the chain.
    const unusable = new Map(p.unusable);
    for (const step of steps.slice(p.evidence.length)) {
      if (run.aborted) return run.abort();
      const needs = referencedVariables(step.input);
      const end = run.recorder.stepStarted(1, { id: step.id, description: step.description || step.tool, dependsOn: needs });
      const missing = needs.find((variable) => unusable.has(variable));
      let record: StepRecord;
      if (missing !== undefined) {
        const text = `Not run: ${missing}, whose evidence it needs, ${unusable.get(missing)}.`;
        record = end(text, true);
        unusable.set(step.id, "was not run");
        evidence.set(step.id, text);
      } else {
        const result = await this.#work(step, substituteEvidence(step.input, evidence), signal, run.recorder);
        // Evidence cut short by the abort is not gathered: a resumed run works the step again.
        if (run.aborted) return run.abort();
        record = end(result.text, result.isError);
        if (result.isError) unusable.set(step.id, "failed");
        evidence.set(step.id, result.isError ? `Error: ${result.text}` : result.text);
      }
      p.evidence = [...evidence];
      p.unusable = [...unusable];
      await run.stepDone(record);
    }

    const reply = await requestReply(
      this.#opts.solverModel ?? this.#opts.model,
      [{ role: "user", content: rewooSolverPrompt(task, steps, evidence) }],
      { events: run.recorder, ...(signal ? { signal } : {}) },
    );
    return run.end(reply.content, "final");
  }

  async #plan(task: string, signal: AbortSignal | undefined, recorder: WorkflowRecorder): Promise<{ steps?: RewooStep[]; errors: string[] }> {
    const messages: Message[] = [
      { role: "system", content: rewooPlannerPrompt(toolCatalog(this.#toolkit.all)) },
      { role: "user", content: `Task: ${task}` },
    ];
    const errors: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const reply = await requestReply(this.#opts.model, messages, { tools: this.#toolkit.specs(), events: recorder, ...(signal ? { signal } : {}) });
      const parsed = parseRewooPlan(reply, this.#toolkit.names);
      if ("steps" in parsed) return { steps: parsed.steps, errors };
      errors.push(parsed.error);
      // Only the reply's text is replayed: its tool calls were a plan, not calls that have results.
      messages.splice(2, messages.length, { role: "assistant", content: reply.content }, { role: "user", content: rewooRetryNote(parsed.error) });
    }
    return { errors };
  }

  async #work(
    step: RewooStep,
    input: RewooStep["input"],
    signal: AbortSignal | undefined,
    recorder: WorkflowRecorder,
  ): Promise<{ text: string; isError: boolean }> {
    if (step.tool === LLM_WORKER) {
      const text = typeof input === "string" ? input : JSON.stringify(input);
      try {
        const reply = await requestReply(this.#opts.workerModel ?? this.#opts.model, [{ role: "user", content: text }], {
          events: recorder,
          ...(signal ? { signal } : {}),
        });
        return { text: reply.content, isError: false };
      } catch (error) {
        return { text: error instanceof Error ? error.message : String(error), isError: true };
      }
    }
    const tool = this.#toolkit.get(step.tool) as Tool;
    return recorder.invokeTool(tool, toToolArguments(tool, input), { round: 1, stepId: step.id, signal });
  }
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
