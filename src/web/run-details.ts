import type { PendingCall } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import type { Checklist } from "../runs/checklist.js";
import "../planning/folding/folding-events.js";
import type { LoggedEvent, RunRecord, RunStore } from "../stores/run-store.js";

/** One tool call as the viewer lists it; `result` is absent while the call runs. */
export type ToolCallEntry = {
  id: string;
  name: string;
  arguments: string;
  result?: { text: string; isError: boolean; refused: boolean };
};

/** Everything the page shows about one run, read from its logged events. */
export type RunDetails = {
  run: RunRecord;
  checklist: Checklist | null;
  /** The most recent tool calls, oldest first. */
  toolCalls: ToolCallEntry[];
  /** Calls waiting for the user's decision (only while the run awaits approval). */
  pending: PendingCall[];
  /** Context-folding notices, oldest first. */
  folds: Extract<AgentEvent, { type: "context-folded" }>[];
  /** The sequence number of the last event read: the page streams from here. */
  lastSeq: number;
};

const PAGE = 1000;

/** Replays a run's events into what the page draws; undefined when there is no such run. */
export async function runDetails(store: RunStore, runId: string): Promise<RunDetails | undefined> {
  const run = await store.getRun(runId);
  if (!run) return undefined;
  const details: RunDetails = { run, checklist: null, toolCalls: [], pending: [], folds: [], lastSeq: 0 };
  for (let page = await store.events(runId, 0, PAGE); page.length > 0; page = await store.events(runId, details.lastSeq, PAGE)) {
    for (const logged of page) applyRunEvent(details, logged);
  }
  if (run.status !== "awaiting-approval") details.pending = [];
  return details;
}

/**
 * Folds one logged event into a run's details. Self-contained on purpose (no imports, no outside
 * names): the page applies streamed events with this same function, sent as its source text.
 */
export function applyRunEvent(details: RunDetails, logged: LoggedEvent): void {
  const recentToolCalls = 30;
  const { seq, event } = logged;
  if (seq <= details.lastSeq) return;
  details.lastSeq = seq;
  switch (event.type) {
    case "checklist-updated":
      details.checklist = event.checklist;
      break;
    case "tool-start":
      details.toolCalls.push({ id: event.call.id, name: event.call.name, arguments: event.call.arguments });
      break;
    case "tool-end": {
      const result = { text: event.result.text, isError: event.result.isError, refused: event.refused };
      const started = details.toolCalls.findLast((call) => call.id === event.call.id && !call.result);
      if (started) started.result = result;
      else details.toolCalls.push({ id: event.call.id, name: event.call.name, arguments: event.call.arguments, result });
      break;
    }
    case "approval-requested":
      details.pending = event.calls;
      break;
    case "run-resumed":
      details.pending = [];
      break;
    case "context-folded":
      details.folds.push(event);
      break;
    default:
      break;
  }
  if (details.toolCalls.length > recentToolCalls) details.toolCalls.splice(0, details.toolCalls.length - recentToolCalls);
}
