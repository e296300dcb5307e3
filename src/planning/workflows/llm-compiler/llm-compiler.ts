import { z } from "zod";
import { linkSignals } from "../../../core/abort.js";
import type { AgentEventListener } from "../../../core/events.js";
import type { AssistantMessage, Message } from "../../../core/messages.js";
import type { PermissionPolicy } from "../../../core/permissions.js";
import { toolResultValue, type Tool, type ToolResult } from "../../../core/tool.js";
import { Toolkit } from "../../../core/toolkit.js";
import { HELD, invokeWithApproval } from "../call-approval.js";
import type { RejectedPlan } from "../plan-approval.js";
import { planRejectedAnswer, rejectedPlanFeedback } from "../plan-approval-prompts.js";
import type { PlanReview } from "../plan-review.js";
import { CompilerPlanParser, type CompilerTask, type PlanParseEvent } from "./compiler-plan-parser.js";
import { readJsonReply } from "../json-reply.js";
import { compilerPlannerPrompt, compilerReplanInput, joinerPrompt, type FinishedTaskView } from "./llm-compiler-prompts.js";
import { requestReply } from "../model-reply.js";
import { HOLD, TaskDagScheduler } from "./task-dag-scheduler.js";
import { substituteTaskResults } from "./task-references.js";
import { toolCatalog } from "../tool-catalog.js";
import { roleModel, type WorkflowModels } from "../workflow-models.js";
import { WorkflowRun } from "../workflow-run.js";
import type { Workflow, WorkflowOutcome, WorkflowRunOptions } from "../workflow.js";
import type { PlannedStep } from "../workflow-trace.js";

/**
 * `model` plans and joins; `plannerModel` and `joinerModel` take over one role (see WorkflowModels).
 * A planner that streams lets tasks start mid-plan.
 */
export interface LLMCompilerOptions extends WorkflowModels<"planner" | "joiner"> {
  tools: Tool[];
  /** Planning rounds at most, the first included (default 3). */
  maxRounds?: number;
  /** Tasks running at once at most (default: no limit). */
  maxParallel?: number;
  name?: string;
  onEvent?: AgentEventListener;
  /**
   * Which tasks' tool calls run, wait for the user or are refused, as for an agent's calls. While a
   * task waits, the tasks already running finish and those that do not need it still start, but no
   * task that needs it does; then the run pauses (stopReason "awaiting-user", every waiting call
   * pending) and `run(task, { state, decisions })` goes on. An approved or edited call runs once; a
   * rejected one has the rejection as its result (the tasks that need it are then not run). Finished
   * tasks are never run again.
   */
  permissions?: PermissionPolicy;
  /**
   * Puts each round's plan before the user before any of its tasks starts (so tasks no longer start
   * while the planner writes): the run pauses on a pending call of kind "plan" whose steps are the
   * tasks as JSON lines (`{"id", "tool", "args", "deps"}`). Approve it, edit the lines (the edited
   * plan runs; the joiner and the trace are told what changed) or reject it with a reason (the
   * planner tries once more; a second rejection stops the run).
   */
  approvePlans?: boolean;
}

/** What a round's plan waiting for the user keeps beside its tasks (shown as lines): the planner's reply they came from. */
type ProposalExtras = { reply: AssistantMessage; durationMs: number };

/** What a checkpoint holds of a compiler run. */
type Progress = {
  round: number;
  /** The planner's input for this round. */
  messages: Message[];
  /** Tasks of earlier rounds, with their results by task id. */
  finished: CompilerTask[];
  results: Record<number, ToolResult>;
  /** This round: the planner's reply once complete, and each finished call with its result. */
  current: { reply: AssistantMessage | null; done: { key: string; result: ToolResult }[] };
};

type Run = WorkflowRun<Progress, ProposalExtras>;

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

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowOutcome> {
    const run: Run = new WorkflowRun(
      "llm-compiler",
      task,
      opts,
      { name: this.#opts.name ?? "llm-compiler", onEvent: this.#opts.onEvent },
      () => ({
        round: 1,
        messages: [
          { role: "system", content: compilerPlannerPrompt(toolCatalog(this.#toolkit.all)) },
          { role: "user", content: `Task: ${task}` },
        ],
        finished: [],
        results: {},
        current: { reply: null, done: [] },
      }),
    );
    return run.ended ?? run.guard(() => this.#drive(run));
  }

  async #drive(run: Run): Promise<WorkflowOutcome> {
    // Tasks get their own signal, so that when planning fails the tasks already running (some may
    // write) are stopped before run() rejects, instead of outliving it.
    const stopTasks = new AbortController();
    const taskSignal = linkSignals(run.signal, stopTasks.signal) as AbortSignal;
    const { task, signal } = run;
    const p = run.progress;
    const maxRounds = this.#opts.maxRounds ?? 3;

    for (;;) {
      if (run.stopping) return run.abort();
      const { round } = p;
      const planStarted = performance.now();
      const parser = new CompilerPlanParser({ tools: this.#toolkit.all, finished: p.finished });
      // Calls this round made before the run was resumed, by what they were called with.
      const doneBefore = new Map(p.current.done.map((done) => [done.key, done.result]));
      const scheduler = new TaskDagScheduler<CompilerTask, ToolResult>(
        (next, inputs) => this.#runTask(next, inputs, run, doneBefore, taskSignal),
        this.#opts.maxParallel ? { maxParallel: this.#opts.maxParallel } : {},
      );
      for (const done of p.finished) scheduler.complete(done.id, p.results[done.id] as ToolResult);
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
      let approved: { review?: PlanReview; durationMs: number } | undefined;
      if (!p.current.reply && this.#opts.approvePlans) {
        const reviewed = await run.reviewPlan((lines) => this.#editedPlanProblem(lines, p.finished));
        switch (reviewed.kind) {
          case "unreviewed":
            return this.#propose(run, await this.#planWhole(run, p.messages), []);
          case "asked-again":
            return reviewed.outcome;
          case "replan": {
            const { proposal, rejected } = reviewed;
            const again = [...p.messages, proposal.reply, { role: "user" as const, content: rejectedPlanFeedback(rejected.steps, rejected.feedback) }];
            const replanned = await this.#planWhole(run, again);
            if (this.#readTasks(replanned.reply, p.finished).tasks.length > 0) return this.#propose(run, replanned, reviewed.earlier);
            // A new plan with no tasks leaves nothing to approve (as in ReWOO): the joiner answers from what is known.
            approved = { durationMs: replanned.durationMs };
            p.current.reply = replanned.reply;
            break;
          }
          case "rejected":
            run.recorder.planned({ steps: [], errors, fallback: false, durationMs: reviewed.proposal.durationMs, review: reviewed.review });
            return run.end(planRejectedAnswer(reviewed.review), "no-answer");
          case "approved":
            approved = { review: reviewed.review, durationMs: reviewed.proposal.durationMs };
            p.current.reply = reviewed.edited ? editedReply(reviewed.steps) : reviewed.proposal.reply;
            break;
        }
      }
      const saved = p.current.reply;
      if (saved) {
        // Resumed after the plan was made: the same reply, read again, gives the same tasks.
        take(parser.push(saved.content));
        take(parser.end(saved));
        // A plan just approved is recorded now, with the review, and runs from here.
        if (approved) {
          if (accepted.length === 0) run.recorder.planningFailed(errors, "answer-without-steps");
          run.recorder.planned({ steps: accepted.map(toPlannedStep), errors, fallback: accepted.length === 0, ...approved });
          await run.checkpoint();
        }
      } else {
        try {
          run.recorder.planningStarted();
          const reply = await requestReply(roleModel(this.#opts, "planner"), p.messages, {
            tools: this.#toolkit.specs(),
            onText: (delta) => take(parser.push(delta)),
            events: run.recorder,
            ...(signal ? { signal } : {}),
          });
          take(parser.end(reply));
          p.current.reply = reply;
        } catch (error) {
          stopTasks.abort(error);
          await scheduler.idle().catch(() => undefined);
          throw error;
        }
        // No task to run: the joiner answers from what is known, which the run must say.
        if (accepted.length === 0) run.recorder.planningFailed(errors, "answer-without-steps");
        run.recorder.planned({ steps: accepted.map(toPlannedStep), errors, fallback: accepted.length === 0, durationMs: performance.now() - planStarted });
        await run.checkpoint();
      }
      try {
        await scheduler.idle();
      } catch (error) {
        stopTasks.abort(error);
        throw error;
      }
      if (run.stopping) return run.abort();
      if (scheduler.held.size > 0) return run.pauseOnHeldCalls();

      const finished = [...p.finished, ...accepted];
      const results = { ...p.results };
      for (const done of accepted) results[done.id] = scheduler.results.get(done.id) as ToolResult;
      const views = finished.map((done): FinishedTaskView => {
        const result = results[done.id] as ToolResult;
        return { id: done.id, call: describeCall(done), result: result.text, isError: result.isError };
      });
      const lastRound = round >= maxRounds;
      const decision = await this.#join(joinerPrompt({ task, done: views, errors, lastRound, review: run.reviewNote }), signal, run);
      if (decision.action === "finish") return run.end(decision.answer, "final");
      if (lastRound) return run.end(`No final answer after ${round} planning rounds. Still missing: ${decision.reason}`, "no-answer");
      Object.assign(p, {
        round: round + 1,
        messages: [
          p.messages[0] as Message,
          { role: "user", content: compilerReplanInput({ done: views, reason: decision.reason, errors, nextId: parser.nextId }) },
        ],
        finished,
        results,
        current: { reply: null, done: [] },
      } satisfies Progress);
      await run.checkpoint();
    }
  }

  /** Pauses the run on a round's whole plan for the user to review: its tasks as JSON lines. */
  #propose(run: Run, planned: ProposalExtras, earlier: RejectedPlan[]): Promise<WorkflowOutcome> {
    const { tasks } = this.#readTasks(planned.reply, run.progress.finished);
    const steps = tasks.map((task) => JSON.stringify({ id: task.id, tool: task.tool, args: task.args, deps: task.dependsOn }));
    return run.proposePlan({ ...planned, steps }, earlier);
  }

  /** The tasks a planner's reply gives after the tasks finished in earlier rounds, and what it had wrong. */
  #readTasks(reply: AssistantMessage, finished: readonly CompilerTask[]): { tasks: CompilerTask[]; errors: string[] } {
    const parser = new CompilerPlanParser({ tools: this.#toolkit.all, finished });
    const events = [...parser.push(reply.content), ...parser.end(reply)];
    return {
      tasks: events.flatMap((event) => (event.type === "task" ? [event.task] : [])),
      errors: events.flatMap((event) => (event.type === "error" ? [event.message] : [])),
    };
  }

  /** Why the task lines a user edited cannot run as they are, or null: every line must be a task this plan can run. */
  #editedPlanProblem(lines: string[], finished: readonly CompilerTask[]): string | null {
    const { tasks, errors } = this.#readTasks(editedReply(lines), finished);
    if (errors.length === 0 && tasks.length > 0) return null;
    const wrong = errors.length > 0 ? errors.join(" ") : "It has no tasks; to stop the plan, reject it instead.";
    return `${wrong} Write each task as one JSON line, {"id": 1, "tool": "<tool>", "args": {…}, "deps": [<ids of the tasks it needs>]}, with tools the plan offers.`;
  }

  /** The planner's whole reply for a round's plan that the user reviews before any task starts. */
  async #planWhole(run: Run, messages: Message[]): Promise<{ reply: AssistantMessage; durationMs: number }> {
    const started = performance.now();
    run.recorder.planningStarted();
    const reply = await requestReply(roleModel(this.#opts, "planner"), messages, {
      tools: this.#toolkit.specs(),
      events: run.recorder,
      ...(run.signal ? { signal: run.signal } : {}),
    });
    return { reply, durationMs: performance.now() - started };
  }

  /**
   * Runs one task, or gives the result it had when this round ran before the run was resumed: a
   * finished call is never made twice. A task stopped by the abort is not done, and runs again; one
   * whose call waits for the user is held (see HOLD).
   */
  async #runTask(
    task: CompilerTask,
    inputs: ReadonlyMap<number, ToolResult>,
    run: Run,
    doneBefore: ReadonlyMap<string, ToolResult>,
    signal: AbortSignal,
  ): Promise<ToolResult | typeof HOLD> {
    const key = callKey(task, inputs);
    const earlier = doneBefore.get(key);
    if (earlier) return earlier;
    // Stopping after the steps in flight: this one is not started (nor recorded), and runs when the run is resumed.
    if (run.stopping) return { text: "Not run: the workflow was stopped.", isError: true };
    const end = run.recorder.stepStarted(run.progress.round, toPlannedStep(task));
    const result = await this.#resolve(task, inputs, signal, run);
    if (result === HELD) return HOLD;
    if (signal.aborted) return result;
    const record = end(result.text, result.isError);
    run.progress.current.done.push({ key, result });
    await run.stepDone(record);
    return result;
  }

  async #resolve(
    task: CompilerTask,
    inputs: ReadonlyMap<number, ToolResult>,
    signal: AbortSignal,
    run: Run,
  ): Promise<ToolResult | typeof HELD> {
    if (task.repeats !== undefined) return inputs.get(task.repeats) as ToolResult;
    if (signal.aborted) return { text: "Not run: the workflow was stopped.", isError: true };
    const failed = [...inputs].find(([, input]) => input.isError);
    if (failed) return { text: `Not run: task ${failed[0]}, whose result it needs, failed.`, isError: true };
    const tool = this.#toolkit.get(task.tool) as Tool;
    const at = { round: run.progress.round, stepId: String(task.id), signal };
    return invokeWithApproval(run, this.#opts.permissions, tool, callArguments(task, inputs), at);
  }

  /** The joiner's verdict. A reply that is not the JSON asked for is taken as the answer itself. */
  async #join(prompt: string, signal: AbortSignal | undefined, run: Run): Promise<z.output<typeof joinerDecision>> {
    const reply = await requestReply(roleModel(this.#opts, "joiner"), [{ role: "user", content: prompt }], {
      events: run.recorder,
      ...(signal ? { signal } : {}),
    });
    const read = readJsonReply(reply.content, joinerDecision);
    return "data" in read ? read.data : { action: "finish", answer: reply.content.trim() };
  }
}

/** The planner's reply an edited plan stands for: the lines the user left are the whole plan. */
function editedReply(lines: readonly string[]): AssistantMessage {
  return { role: "assistant", content: [...lines, JSON.stringify({ tool: "join" })].join("\n") };
}

function describeCall(task: CompilerTask): string {
  return `${task.tool}(${JSON.stringify(task.args)})${task.repeats !== undefined ? ` [same as task ${task.repeats}]` : ""}`;
}

function toPlannedStep(task: CompilerTask): PlannedStep {
  return { id: String(task.id), description: describeCall(task), dependsOn: task.dependsOn.map(String) };
}

/** A task's arguments with the results it uses filled in: each result's value (a file's text, not its numbered lines). */
function callArguments(task: CompilerTask, inputs: ReadonlyMap<number, ToolResult>): Record<string, unknown> {
  return substituteTaskResults(task.args, task.id, new Map([...inputs].map(([id, input]) => [id, toolResultValue(input)])));
}

/** A call as made: its tool and its arguments with the results it uses filled in. */
function callKey(task: CompilerTask, inputs: ReadonlyMap<number, ToolResult>): string {
  return JSON.stringify([task.tool, callArguments(task, inputs), task.repeats ?? null]);
}
