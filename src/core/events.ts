import type { PendingCall } from "./approval.js";
import type { AssistantMessage, ToolCall } from "./messages.js";
import type { Usage } from "./model.js";
import type { RequestDelta } from "./request-delta.js";
import type { ToolResult } from "./tool.js";
import type { StopReason } from "./run-result.js";

/**
 * Every event an agent can emit, by type. Planning modules add their own events by augmenting
 * this interface (`declare module`), so one typed stream carries core and plugin events alike.
 */
export interface AgentEventMap {
  "run-start": { input: string };
  /** `request`: the messages the model receives, as a delta from the run's previous request (see RequestDelta). */
  "model-start": { step: number; messageCount: number; toolCount: number; model?: string; request?: RequestDelta };
  /** Text of the answer as the model writes it (only when the model streams); the deltas add up to model-end's content. */
  "text-delta": { step: number; text: string };
  /** The model has begun a tool call; its arguments are still coming (only when the model streams). */
  "tool-call-start": { step: number; callId: string; name: string };
  /** `durationMs` is the call's latency; `model` the id of the model that answered. */
  "model-end": { step: number; message: AssistantMessage; usage?: Usage; durationMs: number; model?: string };
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

/**
 * Where a run sits in a tree of runs: the run that started it (an agent whose tool started a
 * sub-agent, a workflow running an executor or a compiler task) and the call or step it serves.
 */
export type EventParent = { runId: string; agent: string; toolCallId?: string; stepId?: string };

/** Which run an event belongs to; absent only on events recorded before runs had ids. */
export type EventScope = { runId?: string; parent?: EventParent };

/** What every event carries besides its own fields: who emitted it, when (ms), in which run. */
export type EventStamp = { agent: string; time: number } & EventScope;

/** An event as listeners receive it: stamped with the emitting agent's name, the time and its run. */
export type AgentEvent = {
  [K in AgentEventType]: { type: K } & EventStamp & AgentEventMap[K];
}[AgentEventType];

/** An event as a plugin or the loop emits it, before the agent stamps it. */
export type AgentEventInit = {
  [K in AgentEventType]: { type: K } & AgentEventMap[K];
}[AgentEventType];

export type AgentEventListener = (event: AgentEvent) => void;

/**
 * Stamps an event with the name of the agent (or workflow) it comes from, the time and its run. An
 * event that is stamped already was forwarded from a nested run and keeps the stamp it was given.
 */
export function stampEvent(event: AgentEventInit, agent: string, scope: EventScope = {}): AgentEvent {
  if (isStamped(event)) return event;
  return {
    ...event,
    agent,
    time: Date.now(),
    ...(scope.runId !== undefined ? { runId: scope.runId } : {}),
    ...(scope.parent ? { parent: scope.parent } : {}),
  } as AgentEvent;
}

function isStamped(event: AgentEventInit | AgentEvent): event is AgentEvent {
  const stamp = event as Partial<EventStamp>;
  return typeof stamp.agent === "string" && typeof stamp.time === "number";
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
