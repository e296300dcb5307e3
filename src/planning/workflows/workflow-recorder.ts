import { stampEvent, type AgentEventInit, type AgentEventListener } from "../../core/events.js";
import "./workflow-events.js";
import type { PlannedStep, PlanRound, StepRecord, WorkflowKind, WorkflowResult, WorkflowTrace } from "./workflow-trace.js";

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

/** Records one run's trace and emits the matching events, so the two never disagree. */
export class WorkflowRecorder {
  readonly #workflow: WorkflowKind;
  readonly #emit: WorkflowEventSink;
  readonly #trace: WorkflowTrace;
  readonly #started = performance.now();

  constructor(workflow: WorkflowKind, task: string, emit: WorkflowEventSink) {
    this.#workflow = workflow;
    this.#emit = emit;
    this.#trace = { workflow, task, plans: [], steps: [], answer: "", startedAt: Date.now(), durationMs: 0 };
  }

  get steps(): readonly StepRecord[] {
    return this.#trace.steps;
  }

  get rounds(): number {
    return this.#trace.plans.length;
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

  /** Marks a step as started; call the returned function with its result when it ends. */
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
      this.#emit({
        type: "workflow-step-end",
        workflow: this.#workflow,
        round,
        stepId: step.id,
        result,
        isError,
        durationMs: record.durationMs,
      });
      return record;
    };
  }

  emit(event: AgentEventInit): void {
    this.#emit(event);
  }

  /** Ends the run; `answered: false` when `answer` only says why there is none. */
  finish(answer: string, { answered = true }: { answered?: boolean } = {}): WorkflowResult {
    this.#trace.answer = answer;
    this.#trace.durationMs = performance.now() - this.#started;
    this.#emit({
      type: "workflow-end",
      workflow: this.#workflow,
      answer,
      rounds: this.#trace.plans.length,
      durationMs: this.#trace.durationMs,
    });
    return { answer, trace: structuredClone(this.#trace), answered };
  }
}
