import type { AgentEvent, EventParent } from "../core/events.js";

/**
 * Why a logged call never got its end: the drive stopped with it unanswered (Ctrl-C, an abort, a
 * failure), its process was killed (found so when the run was next taken up), or its tool paused the
 * run for the user (the tool is called again when the run goes on).
 */
export type CallInterruption = "stopped" | "killed" | "paused";

declare module "../core/events.js" {
  interface AgentEventMap {
    /**
     * A model or tool call that started and will never end: the run layer records it as the call's
     * end, stamped with the call's own agent and run, so a log has no call left open for ever.
     */
    "call-interrupted": { kind: "model" | "tool"; step: number; callId?: string; why: CallInterruption };
  }
}

type OpenCall = { kind: "model" | "tool"; agent: string; runId?: string; parent?: EventParent; step: number; callId?: string };

/** The calls of a run's log that started and have not ended yet, followed event by event. */
export class OpenCalls {
  readonly #open = new Map<string, OpenCall>();

  note(event: AgentEvent): void {
    const scope = { agent: event.agent, ...(event.runId !== undefined ? { runId: event.runId } : {}), ...(event.parent ? { parent: event.parent } : {}) };
    switch (event.type) {
      case "model-start":
        this.#open.set(modelKey(event.runId, event.agent, event.step), { kind: "model", step: event.step, ...scope });
        break;
      case "model-end":
        this.#open.delete(modelKey(event.runId, event.agent, event.step));
        break;
      case "tool-start":
        this.#open.set(toolKey(event.runId, event.call.id), { kind: "tool", step: event.step, callId: event.call.id, ...scope });
        break;
      case "tool-end":
        this.#open.delete(toolKey(event.runId, event.call.id));
        break;
      case "call-interrupted":
        this.#open.delete(event.kind === "model" ? modelKey(event.runId, event.agent, event.step) : toolKey(event.runId, event.callId ?? ""));
        break;
      default:
        break;
    }
  }

  /** The events that end every open call as interrupted, at `time`; the calls count as ended from here. */
  interrupt(why: CallInterruption, time: number): AgentEvent[] {
    const events = [...this.#open.values()].map(
      (call): AgentEvent => ({
        type: "call-interrupted",
        kind: call.kind,
        step: call.step,
        ...(call.callId !== undefined ? { callId: call.callId } : {}),
        why,
        agent: call.agent,
        time,
        ...(call.runId !== undefined ? { runId: call.runId } : {}),
        ...(call.parent ? { parent: call.parent } : {}),
      }),
    );
    this.#open.clear();
    return events;
  }
}

function modelKey(runId: string | undefined, agent: string, step: number): string {
  return `model\n${runId ?? ""}\n${agent}\n${step}`;
}

function toolKey(runId: string | undefined, callId: string): string {
  return `tool\n${runId ?? ""}\n${callId}`;
}
