import type { PendingCall } from "./approval.js";
import type { AssistantMessage, ToolCall } from "./messages.js";
import type { Usage } from "./model.js";
import type { ToolResult } from "./tool.js";
import type { StopReason } from "./run-result.js";

/**
 * Every event an agent can emit, by type. Planning modules add their own events by augmenting
 * this interface (`declare module`), so one typed stream carries core and plugin events alike.
 */
export interface AgentEventMap {
  "run-start": { input: string };
  "model-start": { step: number; messageCount: number; toolCount: number };
  "model-end": { step: number; message: AssistantMessage; usage?: Usage; durationMs: number };
  "tool-start": { step: number; call: ToolCall };
  "tool-end": { step: number; call: ToolCall; result: ToolResult; refused: boolean; durationMs: number };
  "approval-requested": { calls: PendingCall[] };
  "run-resumed": { decisions: number };
  /** A model turn is complete: its tool results are in memory. The moment to checkpoint. */
  "turn-end": { step: number };
  "run-end": { stopReason: StopReason; steps: number; text: string; usage: Usage };
  "run-error": { message: string };
}

export type AgentEventType = keyof AgentEventMap;

/** An event as listeners receive it: stamped with the emitting agent's name and the time (ms). */
export type AgentEvent = {
  [K in AgentEventType]: { type: K; agent: string; time: number } & AgentEventMap[K];
}[AgentEventType];

/** An event as a plugin or the loop emits it, before the agent stamps it. */
export type AgentEventInit = {
  [K in AgentEventType]: { type: K } & AgentEventMap[K];
}[AgentEventType];

export type AgentEventListener = (event: AgentEvent) => void;

/** Stamps an event with the name of the agent (or workflow) it comes from and the time. */
export function stampEvent(event: AgentEventInit, agent: string): AgentEvent {
  return { ...event, agent, time: Date.now() } as AgentEvent;
}

/** A tiny fan-out of events to listeners; a throwing listener never breaks the run. */
export class EventHub {
  readonly #listeners = new Set<AgentEventListener>();

  on(listener: AgentEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: AgentEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A broken listener (a UI, a logger) must not take the agent down with it.
      }
    }
  }
}
