import type { AgentEvent } from "../core/events.js";
import type { PlannedStep } from "../planning/workflows/workflow-trace.js";
import { workflowChecklist, type Checklist } from "./checklist.js";

/** Follows a workflow's events and keeps its steps' states, for the checklist. */
export class WorkflowProgress {
  #title = "Plan";
  #steps: PlannedStep[] = [];
  readonly #running = new Set<string>();
  readonly #finished = new Map<string, boolean>();

  readonly observe = (event: AgentEvent): void => {
    if (event.type === "workflow-planned") {
      this.#title = `${event.workflow} plan${event.round > 1 ? ` (round ${event.round})` : ""}`;
      // A replan keeps the finished steps and replaces the rest.
      const done = this.#steps.filter((step) => this.#finished.has(step.id));
      this.#steps = [...done, ...event.steps.filter((step) => !this.#finished.has(step.id))];
    } else if (event.type === "workflow-step-start") {
      this.#running.add(event.step.id);
    } else if (event.type === "workflow-step-end") {
      this.#running.delete(event.stepId);
      this.#finished.set(event.stepId, event.isError);
    }
  };

  checklist(): Checklist | null {
    return this.#steps.length > 0 ? workflowChecklist(this.#title, this.#steps, this.#running, this.#finished) : null;
  }
}
