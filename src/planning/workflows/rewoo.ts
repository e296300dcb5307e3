import type { AgentEventListener } from "../../core/events.js";
import type { Message } from "../../core/messages.js";
import type { ChatModel } from "../../core/model.js";
import type { Tool } from "../../core/tool.js";
import { Toolkit } from "../../core/toolkit.js";
import { referencedVariables, substituteEvidence } from "./evidence-variables.js";
import { requestReply } from "./model-reply.js";
import { LLM_WORKER, parseRewooPlan, type RewooStep } from "./rewoo-plan-parser.js";
import { rewooPlannerPrompt, rewooRetryNote, rewooSolverPrompt } from "./rewoo-prompts.js";
import { toolCatalog } from "./tool-catalog.js";
import { listenerSink, WorkflowRecorder } from "./workflow-recorder.js";
import type { Workflow, WorkflowResult, WorkflowRunOptions } from "./workflow-trace.js";

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

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowResult> {
    const { signal } = opts;
    const name = this.#opts.name ?? "rewoo";
    const recorder = new WorkflowRecorder("rewoo", task, listenerSink(name, this.#opts.onEvent), { name, parent: opts.parent });
    const planStarted = performance.now();
    recorder.planningStarted();
    const { steps, errors } = await this.#plan(task, signal, recorder);
    recorder.planned({
      steps: (steps ?? []).map((step) => ({
        id: step.id,
        description: step.description || step.tool,
        dependsOn: referencedVariables(step.input),
      })),
      errors,
      fallback: steps === undefined,
      durationMs: performance.now() - planStarted,
    });

    const evidence = new Map<string, string>();
    for (const step of steps ?? []) {
      const end = recorder.stepStarted(1, { id: step.id, description: step.description || step.tool, dependsOn: referencedVariables(step.input) });
      const result = await this.#work(step, substituteEvidence(step.input, evidence), signal, recorder);
      end(result.text, result.isError);
      evidence.set(step.id, result.isError ? `Error: ${result.text}` : result.text);
    }

    const reply = await requestReply(
      this.#opts.solverModel ?? this.#opts.model,
      [{ role: "user", content: rewooSolverPrompt(task, steps ?? [], evidence) }],
      { events: recorder, ...(signal ? { signal } : {}) },
    );
    return recorder.finish(reply.content);
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
