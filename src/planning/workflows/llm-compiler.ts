import { z } from "zod";
import { linkSignals } from "../../core/abort.js";
import type { AgentEventListener } from "../../core/events.js";
import type { Message } from "../../core/messages.js";
import type { ChatModel } from "../../core/model.js";
import type { Tool, ToolResult } from "../../core/tool.js";
import { Toolkit } from "../../core/toolkit.js";
import { CompilerPlanParser, type CompilerTask, type PlanParseEvent } from "./compiler-plan-parser.js";
import { readJsonReply } from "./json-reply.js";
import { compilerPlannerPrompt, compilerReplanInput, joinerPrompt, type FinishedTaskView } from "./llm-compiler-prompts.js";
import { requestReply } from "./model-reply.js";
import { TaskDagScheduler } from "./task-dag-scheduler.js";
import { substituteTaskResults } from "./task-references.js";
import { toolCatalog } from "./tool-catalog.js";
import { listenerSink, WorkflowRecorder } from "./workflow-recorder.js";
import type { PlannedStep, Workflow, WorkflowResult, WorkflowRunOptions } from "./workflow-trace.js";

export interface LLMCompilerOptions {
  /** Plans, and joins unless `joinerModel` is given. Streaming models let tasks start mid-plan. */
  model: ChatModel;
  joinerModel?: ChatModel;
  tools: Tool[];
  /** Planning rounds at most, the first included (default 3). */
  maxRounds?: number;
  /** Tasks running at once at most (default: no limit). */
  maxParallel?: number;
  name?: string;
  onEvent?: AgentEventListener;
}

const joinerDecision = z.discriminatedUnion("action", [
  z.object({ action: z.literal("finish"), answer: z.string() }),
  z.object({ action: z.literal("replan"), reason: z.string().default("") }),
]);

/**
 * The LLM compiler: the planner streams a DAG of tool calls, each task starts as soon as the tasks it
 * uses have finished (while the planner is still writing), and a joiner either answers or asks for
 * another round, which continues the numbering and reuses, never reruns, finished tasks.
 */
export class LLMCompiler implements Workflow {
  readonly #opts: LLMCompilerOptions;
  readonly #toolkit: Toolkit;

  constructor(opts: LLMCompilerOptions) {
    this.#opts = opts;
    this.#toolkit = new Toolkit(opts.tools);
  }

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowResult> {
    // Tasks get their own signal, so that when planning fails the tasks already running (some may
    // write) are stopped before run() rejects, instead of outliving it.
    const stopTasks = new AbortController();
    const taskSignal = linkSignals(opts.signal, stopTasks.signal) as AbortSignal;
    const { signal } = opts;
    const name = this.#opts.name ?? "llm-compiler";
    const recorder = new WorkflowRecorder("llm-compiler", task, listenerSink(name, this.#opts.onEvent), { name, parent: opts.parent });
    const maxRounds = this.#opts.maxRounds ?? 3;
    const finished: CompilerTask[] = [];
    const results = new Map<number, ToolResult>();
    const messages: Message[] = [
      { role: "system", content: compilerPlannerPrompt(toolCatalog(this.#toolkit.all)) },
      { role: "user", content: `Task: ${task}` },
    ];

    for (let round = 1; ; round++) {
      const planStarted = performance.now();
      recorder.planningStarted();
      const parser = new CompilerPlanParser({ tools: this.#toolkit.all, finished });
      const scheduler = new TaskDagScheduler<CompilerTask, ToolResult>(
        (next, inputs) => this.#runTask(next, inputs, recorder, round, taskSignal),
        this.#opts.maxParallel ? { maxParallel: this.#opts.maxParallel } : {},
      );
      for (const done of finished) scheduler.complete(done.id, results.get(done.id) as ToolResult);
      const accepted: CompilerTask[] = [];
      const errors: string[] = [];
      const take = (events: PlanParseEvent[]) => {
        for (const event of events) {
          if (event.type === "error") {
            errors.push(event.message);
            continue;
          }
          accepted.push(event.task);
          // A repeat waits for the task it repeats and takes its result.
          const { repeats } = event.task;
          scheduler.add(repeats === undefined ? event.task : { ...event.task, dependsOn: [repeats] });
        }
      };
      try {
        const reply = await requestReply(this.#opts.model, messages, {
          tools: this.#toolkit.specs(),
          onText: (delta) => take(parser.push(delta)),
          events: recorder,
          ...(signal ? { signal } : {}),
        });
        take(parser.end(reply));
      } catch (error) {
        stopTasks.abort(error);
        await scheduler.idle().catch(() => undefined);
        throw error;
      }
      recorder.planned({ steps: accepted.map(toPlannedStep), errors, fallback: accepted.length === 0, durationMs: performance.now() - planStarted });
      await scheduler.idle();
      for (const done of accepted) {
        finished.push(done);
        results.set(done.id, scheduler.results.get(done.id) as ToolResult);
      }

      const views = finished.map((done): FinishedTaskView => {
        const result = results.get(done.id) as ToolResult;
        return { id: done.id, call: describeCall(done), result: result.text, isError: result.isError };
      });
      const lastRound = round >= maxRounds;
      const decision = await this.#join(joinerPrompt({ task, done: views, errors, lastRound }), signal, recorder);
      if (decision.action === "finish") return recorder.finish(decision.answer);
      if (lastRound) return recorder.finish(`No final answer after ${round} planning rounds. Still missing: ${decision.reason}`);
      messages.splice(2, messages.length, {
        role: "user",
        content: compilerReplanInput({ done: views, reason: decision.reason, errors, nextId: parser.nextId }),
      });
    }
  }

  async #runTask(
    task: CompilerTask,
    inputs: ReadonlyMap<number, ToolResult>,
    recorder: WorkflowRecorder,
    round: number,
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const end = recorder.stepStarted(round, toPlannedStep(task));
    const result = await this.#resolve(task, inputs, signal, { recorder, round });
    end(result.text, result.isError);
    return result;
  }

  async #resolve(
    task: CompilerTask,
    inputs: ReadonlyMap<number, ToolResult>,
    signal: AbortSignal,
    at: { recorder: WorkflowRecorder; round: number },
  ): Promise<ToolResult> {
    if (task.repeats !== undefined) return inputs.get(task.repeats) as ToolResult;
    if (signal.aborted) return { text: "Not run: the workflow was stopped.", isError: true };
    const failed = [...inputs].find(([, input]) => input.isError);
    if (failed) return { text: `Not run: task ${failed[0]}, whose result it needs, failed.`, isError: true };
    const texts = new Map([...inputs].map(([id, input]) => [id, input.text]));
    const tool = this.#toolkit.get(task.tool) as Tool;
    return at.recorder.invokeTool(tool, substituteTaskResults(task.args, texts), { round: at.round, stepId: String(task.id), signal });
  }

  /** The joiner's verdict. A reply that is not the JSON asked for is taken as the answer itself. */
  async #join(prompt: string, signal: AbortSignal | undefined, recorder: WorkflowRecorder): Promise<z.output<typeof joinerDecision>> {
    const reply = await requestReply(this.#opts.joinerModel ?? this.#opts.model, [{ role: "user", content: prompt }], {
      events: recorder,
      ...(signal ? { signal } : {}),
    });
    const read = readJsonReply(reply.content, joinerDecision);
    return "data" in read ? read.data : { action: "finish", answer: reply.content.trim() };
  }
}

function describeCall(task: CompilerTask): string {
  return `${task.tool}(${JSON.stringify(task.args)})${task.repeats !== undefined ? ` [same as task ${task.repeats}]` : ""}`;
}

function toPlannedStep(task: CompilerTask): PlannedStep {
  return { id: String(task.id), description: describeCall(task), dependsOn: task.dependsOn.map(String) };
}
