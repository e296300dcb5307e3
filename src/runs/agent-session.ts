import type { Agent, RunOptions } from "../core/agent.js";
import type { ApprovalDecisions, PendingCall } from "../core/approval.js";
import type { AgentEventListener } from "../core/events.js";
import type { RunResult } from "../core/run-result.js";
import type { AgentState } from "../core/state.js";
import type { Checklist } from "./checklist.js";
import type { SessionOutcome, StrategySession } from "./strategy-session.js";

/** A paused turn whose decisions were applied when the checkpoint was saved: the run may have been killed while they ran. */
type DecidedState = AgentState & { pending: NonNullable<AgentState["pending"]> & { decided?: true } };

/** A strategy that is an agent with planning plugins (notebook, tasks, todos, plan tool). */
export class AgentSession implements StrategySession {
  /** While the user's decisions are applied: the calls decided on, whose turn checkpoints mark decided. */
  #deciding: string | undefined;

  constructor(
    readonly strategy: string,
    readonly agent: Agent,
    private readonly hooks: {
      checklist: () => Promise<Checklist | null>;
      /** Stores the run's checkpoint (this session's state) before the run goes on. */
      save: () => Promise<void>;
      /** Sees the state a run was restored from (the plan tool's checklist starts from it). */
      restored?: (state: AgentState) => void;
      close?: () => Promise<void>;
    },
  ) {}

  on(listener: AgentEventListener): () => void {
    return this.agent.on(listener);
  }

  async run(task: string, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome> {
    return outcome(await this.agent.run(task, signals(signal, stopAfterStep)));
  }

  async continue(task: string, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome> {
    if (this.agent.memory.length === 0) return this.run(task, signal, stopAfterStep);
    return outcome(await this.agent.continue(signals(signal, stopAfterStep)));
  }

  /**
   * Saves the turn as decided before any approved call runs, so a run killed from here on gives up
   * the calls it was waiting on (answered as interrupted) instead of asking again and running them twice.
   */
  async resume(decisions: ApprovalDecisions, signal: AbortSignal, stopAfterStep?: AbortSignal): Promise<SessionOutcome> {
    this.#deciding = callIds(this.agent.pending);
    try {
      await this.hooks.save();
      return outcome(await this.agent.resume(undefined, decisions, signals(signal, stopAfterStep)));
    } finally {
      this.#deciding = undefined;
    }
  }

  pending(): PendingCall[] {
    return this.agent.pending;
  }

  checkpoint(): unknown {
    const state = this.agent.saveState();
    // Only the turn decided on: a turn that waits again later is a new one, still undecided.
    const decided = state.pending && callIds(state.pending.awaiting) === this.#deciding;
    return decided ? ({ ...state, pending: { ...(state.pending as DecidedState["pending"]), decided: true } } satisfies DecidedState) : state;
  }

  restore(checkpoint: unknown): void {
    const { pending, ...rest } = checkpoint as DecidedState;
    if (!pending?.decided) this.agent.loadState(checkpoint as AgentState);
    else {
      const { decided: _, ...turn } = pending;
      this.agent.loadState({ ...rest, pending: turn });
      this.agent.abandonPending();
    }
    this.hooks.restored?.(checkpoint as AgentState);
  }

  checklist(): Promise<Checklist | null> {
    return this.hooks.checklist();
  }

  async close(): Promise<void> {
    await this.agent.close();
    await this.hooks.close?.();
  }
}

function signals(signal: AbortSignal, stopAfterStep: AbortSignal | undefined): RunOptions {
  return { signal, ...(stopAfterStep ? { stopAfterStep } : {}) };
}

function callIds(calls: readonly PendingCall[]): string {
  return calls.map((call) => call.id).join("\n");
}

function outcome(result: RunResult): SessionOutcome {
  return { text: result.text, stopReason: result.stopReason, ...(result.pending ? { pending: result.pending } : {}) };
}
