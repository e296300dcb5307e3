import type { Agent } from "../core/agent.js";
import type { ApprovalDecisions, PendingCall } from "../core/approval.js";
import type { AgentEventListener } from "../core/events.js";
import type { RunResult } from "../core/run-result.js";
import type { AgentState } from "../core/state.js";
import type { Checklist } from "./checklist.js";
import type { SessionOutcome, StrategySession } from "./strategy-session.js";

/** A strategy that is an agent with planning plugins (notebook, tasks, todos, plan tool). */
export class AgentSession implements StrategySession {
  constructor(
    readonly strategy: string,
    readonly agent: Agent,
    private readonly readChecklist: () => Promise<Checklist | null>,
    private readonly onClose: () => Promise<void> = async () => undefined,
  ) {}

  on(listener: AgentEventListener): () => void {
    return this.agent.on(listener);
  }

  async run(task: string, signal: AbortSignal): Promise<SessionOutcome> {
    return outcome(await this.agent.run(task, { signal }));
  }

  async continue(task: string, signal: AbortSignal): Promise<SessionOutcome> {
    if (this.agent.memory.length === 0) return this.run(task, signal);
    return outcome(await this.agent.continue({ signal }));
  }

  async resume(decisions: ApprovalDecisions, signal: AbortSignal): Promise<SessionOutcome> {
    return outcome(await this.agent.resume(undefined, decisions, { signal }));
  }

  pending(): PendingCall[] {
    return this.agent.pending;
  }

  checkpoint(): unknown {
    return this.agent.saveState();
  }

  restore(checkpoint: unknown): void {
    this.agent.loadState(checkpoint as AgentState);
  }

  checklist(): Promise<Checklist | null> {
    return this.readChecklist();
  }

  async close(): Promise<void> {
    await this.agent.close();
    await this.onClose();
  }
}

function outcome(result: RunResult): SessionOutcome {
  return { text: result.text, stopReason: result.stopReason, ...(result.pending ? { pending: result.pending } : {}) };
}
