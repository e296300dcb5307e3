import type { ApprovalDecisions, PendingCall } from "../core/approval.js";
import { EventHub, type AgentEvent, type AgentEventListener } from "../core/events.js";
import type { Workflow, WorkflowOutcome, WorkflowRunOptions, WorkflowState } from "../planning/workflows/workflow.js";
import type { Checklist } from "./checklist.js";
import type { SessionOutcome, StrategySession } from "./strategy-session.js";
import { WorkflowProgress } from "./workflow-progress.js";

/**
 * A plan-then-execute workflow as a run: it saves its state after every step (through `save`), so
 * a killed run goes on without redoing finished steps, and pauses into that state for the user's
 * approval of a plan or of a step's tool call.
 */
export class WorkflowSession implements StrategySession {
  readonly #hub = new EventHub();
  readonly #progress = new WorkflowProgress();
  #state: WorkflowState | undefined;

  constructor(
    readonly strategy: string,
    private readonly makeWorkflow: (onEvent: AgentEventListener) => Workflow,
    /** Stores the run's checkpoint (this session's state) before the run goes on. */
    private readonly save: () => Promise<void>,
  ) {}

  on(listener: AgentEventListener): () => void {
    return this.#hub.on(listener);
  }

  run(task: string, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome> {
    return this.#drive(task, { signal, ...soft(stopAfterStep) });
  }

  continue(task: string, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome> {
    return this.#drive(task, { signal, ...soft(stopAfterStep), ...(this.#state ? { state: this.#state } : {}) });
  }

  resume(decisions: ApprovalDecisions, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome> {
    const state = this.#state;
    if (!state) throw new Error(`the ${this.strategy} run has no saved state to resume`);
    return this.#drive(state.task, { signal, ...soft(stopAfterStep), state, decisions });
  }

  pending(): PendingCall[] {
    return structuredClone(this.#state?.pending ?? []);
  }

  checkpoint(): unknown {
    return this.#state ?? { strategy: this.strategy };
  }

  /** A checkpoint written before workflows kept their state (`{ strategy }`) starts the run over. */
  restore(checkpoint: unknown): void {
    const state = checkpoint as Partial<WorkflowState> | null;
    if (!state || typeof state !== "object" || typeof state.version !== "number" || typeof state.task !== "string") return;
    this.#state = checkpoint as WorkflowState;
    // The checklist goes on from the steps done before, not from the first step after the resume.
    if (state.trace) this.#progress.restore(state.trace);
  }

  async checklist(): Promise<Checklist | null> {
    return this.#progress.checklist();
  }

  async close(): Promise<void> {}

  async #drive(task: string, opts: WorkflowRunOptions & { signal: AbortSignal }): Promise<SessionOutcome> {
    const workflow = this.makeWorkflow((event: AgentEvent) => {
      this.#progress.observe(event);
      this.#hub.emit(event);
    });
    let outcome: WorkflowOutcome;
    try {
      outcome = await workflow.run(task, {
        ...opts,
        onCheckpoint: async (state) => {
          this.#state = state;
          await this.save();
        },
      });
    } catch (error) {
      if (opts.signal.aborted) return { text: "", stopReason: "aborted" };
      throw error;
    }
    this.#state = outcome.state;
    // Every ending keeps its own reason: a run that ran out of rounds or steps is not an answer.
    return { text: outcome.text, stopReason: outcome.stopReason, ...(outcome.pending ? { pending: outcome.pending } : {}) };
  }
}

function soft(stopAfterStep: AbortSignal | undefined): Pick<WorkflowRunOptions, "stopAfterStep"> {
  return stopAfterStep ? { stopAfterStep } : {};
}
