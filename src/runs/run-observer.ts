import { stampEvent, type AgentEvent, type AgentEventType } from "../core/events.js";
import type { StrategySession } from "./strategy-session.js";

/** Events after which the plan may look different. */
const PLAN_EVENTS = new Set<AgentEventType>([
  "plan-updated",
  "tasks-updated",
  "todos-updated",
  "workflow-planned",
  "workflow-step-start",
  "workflow-step-end",
  "run-start",
]);

/**
 * Follows a session: passes every event on, in order, and after each change to the plan adds a
 * `checklist-updated` event with the plan as it now stands (reading a board and recording an event may be
 * async, so events queue behind them to keep their order). A listener that throws (the store busy, say) loses that one
 * event, not every later one: the first failure goes to `onListenerError`, and the queue goes on.
 */
export function observeSession(
  session: StrategySession,
  listener: (event: AgentEvent) => void | Promise<void>,
  onListenerError: (error: unknown) => void,
): { off(): void; settled(): Promise<void> } {
  let queue = Promise.resolve();
  let reported = false;
  const off = session.on((event: AgentEvent) => {
    queue = queue
      .then(async () => {
        await listener(event);
        if (!PLAN_EVENTS.has(event.type)) return;
        const checklist = await session.checklist().catch(() => null);
        const scope = { ...(event.runId !== undefined ? { runId: event.runId } : {}), ...(event.parent ? { parent: event.parent } : {}) };
        if (checklist) await listener(stampEvent({ type: "checklist-updated", checklist }, event.agent, scope));
      })
      .catch((error: unknown) => {
        if (reported) return;
        reported = true;
        onListenerError(error);
      });
  });
  return { off, settled: () => queue };
}
