import { stampEvent, type AgentEventInit, type AgentEventListener } from "../../core/events.js";
import "./workflow-events.js";
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

/** Records one run's trace and emits the matching events, so the two never disagree. */
export class WorkflowRecorder {
  readonly #workflow: WorkflowKind;
  readonly #emit: WorkflowEventSink;
  readonly #trace: WorkflowTrace;
  readonly #started = performance.now();
  /** Time spent in earlier sessions of a resumed run; waiting for the user is not counted. */
  readonly #earlierMs: number;

  /** `trace` is the trace so far of a run being resumed. */
  constructor(workflow: WorkflowKind, task: string, emit: WorkflowEventSink, trace?: WorkflowTrace) {
    this.#workflow = workflow;
    this.#emit = emit;
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

  emit(event: AgentEventInit): void {
    this.#emit(event);
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
