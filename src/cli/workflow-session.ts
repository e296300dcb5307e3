import type { ApprovalDecisions, PendingCall } from "../core/approval.js";
import { EventHub, type AgentEvent, type AgentEventListener } from "../core/events.js";
import type { Workflow } from "../planning/workflows/workflow.js";
import type { Checklist } from "./checklist.js";
import { CliError } from "./cli-error.js";
import type { SessionOutcome, StrategySession } from "./strategy-session.js";
import { WorkflowProgress } from "./workflow-progress.js";

/**
 * A plan-then-execute workflow in the CLI. Workflows run start to finish: a resumed one starts over
 * (its steps are not checkpointed).
 */
export class WorkflowSession implements StrategySession {
  readonly #hub = new EventHub();
  readonly #progress = new WorkflowProgress();

  constructor(
    readonly strategy: string,
    private readonly makeWorkflow: (onEvent: AgentEventListener) => Workflow,
  ) {}

  on(listener: AgentEventListener): () => void {
    return this.#hub.on(listener);
  }

  async run(task: string, signal: AbortSignal): Promise<SessionOutcome> {
    const workflow = this.makeWorkflow((event: AgentEvent) => {
      this.#progress.observe(event);
      this.#hub.emit(event);
    });
    try {
      const outcome = await workflow.run(task, { signal });
      // Every ending keeps its own reason: a run that ran out of rounds or steps is not an answer.
      return { text: outcome.text, stopReason: outcome.stopReason };
    } catch (error) {
      if (signal.aborted) return { text: "", stopReason: "aborted" };
      throw error;
    }
  }

  continue(task: string, signal: AbortSignal): Promise<SessionOutcome> {
    return this.run(task, signal);
  }

  resume(_decisions: ApprovalDecisions, _signal: AbortSignal): Promise<SessionOutcome> {
    throw new CliError(`the ${this.strategy} workflow does not pause for approval; nothing to resume`);
  }

  pending(): PendingCall[] {
    return [];
  }

  checkpoint(): unknown {
    return { strategy: this.strategy };
  }

  restore(): void {
    // Nothing to restore: a workflow starts over.
  }

  async checklist(): Promise<Checklist | null> {
    return this.#progress.checklist();
  }

  async close(): Promise<void> {}
}
