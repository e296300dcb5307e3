import { stampEvent, type AgentEvent, type AgentEventInit, type AgentEventListener, type EventParent } from "../../core/events.js";
import type { ToolCall } from "../../core/messages.js";
import type { Tool, ToolResult } from "../../core/tool.js";
import type { ReplyEvents } from "./model-reply.js";
import type { SubAgentLink } from "./sub-agent.js";
import type { PlanFallback } from "./workflow-events.js";
import type { PlannedStep, PlanRound, StepRecord, WorkflowKind, WorkflowTrace } from "./workflow-trace.js";

/** Where a workflow's events go: a listener the user passed, and/or the agents a plugin is attached to. */
export type WorkflowEventSink = (event: AgentEventInit) => void;

/** Builds a listener-facing sink: events are stamped with the workflow's name, as an agent stamps its own. */
export function listenerSink(name: string, listener: AgentEventListener | undefined): WorkflowEventSink {
  if (!listener) return () => {};
  return (event) => {
    try {
      listener(stampEvent(event, name));
    } catch {
      // A broken listener must not break the workflow, as with EventHub.
    }
  };
}

/** Where one of a workflow's own tool calls happens: its round and step. */
export type StepAt = { round: number; stepId: string; signal?: AbortSignal | undefined };

/** One of a workflow's own tool calls (a ReWOO or compiler step), named for its step so a resumed run finds it again. */
export function stepCall(toolName: string, args: unknown, stepId: string): ToolCall {
  return { id: `step-${stepId}`, name: toolName, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) };
}

/** Who runs a workflow: the name its events carry, and the run it serves, if any. */
export type WorkflowRunIdentity = { name: string; parent?: EventParent | undefined };

/**
 * Records one run's trace and emits the matching events, so the two never disagree. Every event is
 * stamped with the workflow's run, and its sub-agents' events are forwarded with that run as parent.
 */
export class WorkflowRecorder implements ReplyEvents {
  readonly runId = crypto.randomUUID();
  readonly #workflow: WorkflowKind;
  readonly #sink: WorkflowEventSink;
  readonly #identity: WorkflowRunIdentity;
  readonly #trace: WorkflowTrace;
  readonly #started = performance.now();
  #modelCalls = 0;
  /** Time spent in earlier sessions of a resumed run; waiting for the user is not counted. */
  readonly #earlierMs: number;

  /** `trace` is the trace so far of a run being resumed. */
  constructor(workflow: WorkflowKind, task: string, emit: WorkflowEventSink, identity: WorkflowRunIdentity, trace?: WorkflowTrace) {
    this.#workflow = workflow;
    this.#sink = emit;
    this.#identity = identity;
    this.#trace = trace ? structuredClone(trace) : { workflow, task, plans: [], steps: [], answer: "", startedAt: Date.now(), durationMs: 0 };
    this.#earlierMs = this.#trace.durationMs;
  }

  /** The trace as it stands, with the time spent so far. */
  snapshot(): WorkflowTrace {
    this.#trace.durationMs = this.#earlierMs + performance.now() - this.#started;
    return structuredClone(this.#trace);
  }

  get steps(): readonly StepRecord[] {
    return this.#trace.steps;
  }

  get rounds(): number {
    return this.#trace.plans.length;
  }

  /** Says that the next round's planning has begun. */
  planningStarted(): void {
    this.#emit({ type: "workflow-planning-started", workflow: this.#workflow, round: this.#trace.plans.length + 1 });
  }

  /** Says that the planner of the round being planned gave nothing usable, and what the run does instead. */
  planningFailed(errors: readonly string[], instead: PlanFallback): void {
    this.#emit({ type: "planning-failed", workflow: this.#workflow, round: this.#trace.plans.length + 1, errors: [...errors], instead });
  }

  planned(round: Omit<PlanRound, "round">): PlanRound {
    const plan: PlanRound = { round: this.#trace.plans.length + 1, ...round };
    this.#trace.plans.push(plan);
    this.#emit({
      type: "workflow-planned",
      workflow: this.#workflow,
      round: plan.round,
      steps: plan.steps,
      errors: plan.errors,
      fallback: plan.fallback,
    });
    return plan;
  }

  /**
   * Marks a step as started; call the returned function with its result when it ends, which records
   * it, and announce the record once it is checkpointed.
   */
  stepStarted(round: number, step: PlannedStep): (result: string, isError: boolean) => StepRecord {
    const startedAt = Date.now();
    const started = performance.now();
    this.#emit({ type: "workflow-step-start", workflow: this.#workflow, round, step });
    return (result, isError) => {
      const record: StepRecord = {
        id: step.id,
        round,
        description: step.description,
        result,
        isError,
        startedAt,
        durationMs: performance.now() - started,
      };
      this.#trace.steps.push(record);
      return record;
    };
  }

  stepAnnounced(record: StepRecord): void {
    const { round, id: stepId, result, isError, durationMs } = record;
    this.#emit({ type: "workflow-step-end", workflow: this.#workflow, round, stepId, result, isError, durationMs });
  }

  /** Emits an event of this run; an event of a nested run (already stamped) passes on unchanged. */
  emit(event: AgentEventInit | AgentEvent): void {
    this.#emit(event);
  }

  nextModelStep(): number {
    return ++this.#modelCalls;
  }

  /** The parent of a run this one starts: for a step's executor, name the step. */
  childOf(stepId?: string): EventParent {
    return { runId: this.runId, agent: this.#identity.name, ...(stepId !== undefined ? { stepId } : {}) };
  }

  /** How a sub-agent hangs under this run (at step `stepId`) and hands its events back. */
  link(stepId?: string): SubAgentLink {
    return { parent: this.childOf(stepId), forward: (event) => this.#emit(event) };
  }

  /** Runs one of the workflow's own tool calls (a ReWOO or compiler step) between tool-start and tool-end. */
  async invokeTool(tool: Tool, args: unknown, at: StepAt): Promise<ToolResult> {
    const call = stepCall(tool.name, args, at.stepId);
    this.#emit({ type: "tool-start", step: at.round, call: { ...call } });
    const started = Date.now();
    const ctx = { agentName: this.#identity.name, toolCallId: call.id, runId: this.runId, ...(at.signal ? { signal: at.signal } : {}) };
    const invoked = await tool.invoke(args, ctx);
    // A step's call cannot wait for the user mid-call (ToolPause): only an agent goes on with a paused call.
    const result = invoked.paused ? { text: pausedInStepText(tool.name), isError: true } : invoked;
    // The log shows the result as the tool answered it; the step's progress keeps its value.
    const { value: _value, ...shown } = result;
    this.#emit({ type: "tool-end", step: at.round, call, result: shown, refused: false, durationMs: Date.now() - started });
    return result;
  }

  /** Reports one of the workflow's own tool calls that did not run (denied, rejected or answered by the user), as an agent reports its own. */
  toolNotRun(call: ToolCall, result: ToolResult, round: number, refused = true): ToolResult {
    this.#emit({ type: "tool-start", step: round, call: { ...call } });
    this.#emit({ type: "tool-end", step: round, call: { ...call }, result, refused, durationMs: 0 });
    return result;
  }

  #emit(event: AgentEventInit | AgentEvent): void {
    const { name, parent } = this.#identity;
    this.#sink(stampEvent(event, name, { runId: this.runId, ...(parent ? { parent } : {}) }));
  }

  /** Sets the answer and returns the finished trace; `ended` announces the end once it is checkpointed. */
  finish(answer: string): WorkflowTrace {
    this.#trace.answer = answer;
    return this.snapshot();
  }

  ended(trace: WorkflowTrace): void {
    this.#emit({ type: "workflow-end", workflow: this.#workflow, answer: trace.answer, rounds: trace.plans.length, durationMs: trace.durationMs });
  }
}

function pausedInStepText(tool: string): string {
  return `Tool "${tool}" stopped to wait for the user in the middle of its call (a question or a call to approve), which a workflow step cannot do; its call did not finish. Go on without it or tell the user.`;
}
