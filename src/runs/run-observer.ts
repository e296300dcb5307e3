import { stampEvent, type AgentEvent, type AgentEventType } from "../core/events.js";
import type { StrategySession } from "./strategy-session.js";
import { TEXT_BATCH_MS, TextDeltaBatches } from "./text-delta-batches.js";

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
 * async, so events queue behind them to keep their order). Streamed text is passed on in batches
 * (`TextDeltaBatches`); `settled` passes on what is still gathered. A listener that throws (the store busy,
 * say) loses that one event, not every later one: the first failure goes to `onListenerError`, and the
 * queue goes on.
 */
export function observeSession(
  session: StrategySession,
  listener: (event: AgentEvent) => void | Promise<void>,
  onListenerError: (error: unknown) => void,
): { off(): void; settled(): Promise<void> } {
  let queue = Promise.resolve();
  let reported = false;
  const reportOnce = (error: unknown) => {
    if (reported) return;
    reported = true;
    onListenerError(error);
  };
  const batches = new TextDeltaBatches(async (event) => {
    try {
      await listener(event);
    } catch (error) {
      reportOnce(error);
    }
  });
  const flush = () => {
    queue = queue.then(() => batches.flush());
    return queue;
  };
  // Text gathered while the model pauses goes on within a batch's span all the same, in the queue's order.
  let flushSoon: NodeJS.Timeout | undefined;
  const off = session.on((event: AgentEvent) => {
    queue = queue
      .then(async () => {
        await batches.add(event);
        if (event.type === "text-delta" && batches.open && !flushSoon) {
          flushSoon = setTimeout(() => {
            flushSoon = undefined;
            void flush();
          }, TEXT_BATCH_MS);
          flushSoon.unref();
        }
        if (!PLAN_EVENTS.has(event.type)) return;
        const checklist = await session.checklist().catch(() => null);
        const scope = { ...(event.runId !== undefined ? { runId: event.runId } : {}), ...(event.parent ? { parent: event.parent } : {}) };
        if (checklist) await batches.add(stampEvent({ type: "checklist-updated", checklist }, event.agent, scope));
      })
      .catch(reportOnce);
  });
  return {
    off: () => {
      clearTimeout(flushSoon);
      off();
    },
    settled: flush,
  };
}
