import type { PendingCall } from "../core/approval.js";
import type { RunStore } from "../stores/run-store.js";
import { loggedEvents } from "./run-events.js";

/** The calls a paused run waits on, as its log last announced them: without building the run's session (its models, its tools). */
export async function loggedPendingCalls(store: RunStore, runId: string): Promise<PendingCall[]> {
  let pending: PendingCall[] = [];
  for await (const { event } of loggedEvents(store, runId)) {
    if (event.type === "approval-requested") pending = event.calls;
    else if (event.type === "run-resumed") pending = [];
  }
  return pending;
}
