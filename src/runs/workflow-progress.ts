import type { AgentEvent } from "../core/events.js";
import type { PlannedStep, WorkflowKind, WorkflowTrace } from "../planning/workflows/workflow-trace.js";
import { workflowChecklist, type Checklist } from "./checklist.js";

/** Follows a workflow's events and keeps its steps' states, for the checklist. */
export class WorkflowProgress {
  #title = "Plan";
  #steps: PlannedStep[] = [];
  readonly #running = new Set<string>();
  readonly #finished = new Map<string, boolean>();

  readonly observe = (event: AgentEvent): void => {
    if (event.type === "workflow-planned") this.#planned(event.workflow, event.round, event.steps);
    else if (event.type === "workflow-step-start") {
      this.#running.add(event.step.id);
    } else if (event.type === "workflow-step-end") {
      this.#running.delete(event.stepId);
      this.#finished.set(event.stepId, event.isError);
    }
  };

  /**
   * Starts from the trace of a run resumed from its checkpoint, so the checklist keeps the steps
   * planned and finished before: each plan round in turn, with the steps run before it finished.
   */
  restore(trace: WorkflowTrace): void {
    this.#steps = [];
    this.#running.clear();
    this.#finished.clear();
    for (const plan of trace.plans) {
      for (const step of trace.steps) if (step.round < plan.round) this.#finished.set(step.id, step.isError);
      this.#planned(trace.workflow, plan.round, plan.steps);
    }
    for (const step of trace.steps) this.#finished.set(step.id, step.isError);
  }

  checklist(): Checklist | null {
    return this.#steps.length > 0 ? workflowChecklist(this.#title, this.#steps, this.#running, this.#finished) : null;
  }

  #planned(workflow: WorkflowKind, round: number, steps: readonly PlannedStep[]): void {
    this.#title = `${workflow} plan${round > 1 ? ` (round ${round})` : ""}`;
    // A replan keeps the finished steps and replaces the rest.
    const done = this.#steps.filter((step) => this.#finished.has(step.id));
    this.#steps = [...done, ...steps.filter((step) => !this.#finished.has(step.id))];
  }
}
