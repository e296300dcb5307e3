import type { PendingCall } from "../../core/approval.js";
import type { AgentEvent, EventParent } from "../../core/events.js";
import type { Usage } from "../../core/model.js";
import { estimateCostUsd } from "../../models/model-prices.js";
import type { Checklist, ChecklistItem } from "../../runs/checklist.js";
import type { ContextFoldedEvent } from "../../planning/folding/folding-events.js";
import type { CallInterruption } from "../../runs/open-calls.js";
import type { PlanFallback } from "../../planning/workflows/workflow-events.js";
import type { LoggedEvent, RunRecord } from "../../stores/run-store.js";
import { readableLabel } from "./node-label.js";

/** How much of a tool call's arguments and result the run view keeps; the whole call is fetched when opened. */
const PREVIEW_CHARS = 300;
/** Tool calls listed under "Recent tool calls". */
const RECENT_TOOL_CALLS = 30;
/** Plan revisions kept, newest last. */
const REVISIONS_KEPT = 200;

/** A text cut to `PREVIEW_CHARS`, saying whether it was. */
export type Preview = { text: string; cut: boolean };

/** One tool call: when it ran, in which run; `result` is absent while it runs. */
export type ToolCallEntry = {
  id: string;
  name: string;
  arguments: Preview;
  agent: string;
  runId?: string;
  /** When it started and ended (ms), and the sequence numbers of those events: log order tells what overlapped. */
  start: number;
  end?: number;
  startSeq: number;
  endSeq?: number;
  result?: { text: Preview; isError: boolean; refused: boolean };
  /** Why the call ended without a result (`end` is when that was recorded). */
  interrupted?: CallInterruption;
};

/** One model call: `n` counts the run's model calls from 1, nested runs' included, in log order. */
export type ModelCallEntry = {
  n: number;
  agent: string;
  runId?: string;
  /** As the agent numbered it, from 1 again each time its run was resumed. */
  step: number;
  /** The call's number within its run (its node), counting every time the run went on. */
  callInRun: number;
  /** What the call was for, when the log says: a workflow's planning round. */
  purpose?: string;
  model?: string;
  start: number;
  end?: number;
  startSeq: number;
  endSeq?: number;
  messageCount: number;
  /** Where the ephemeral tail (hint, recitation) starts, when the call recorded it. */
  ephemeralFrom?: number;
  usage?: Usage;
  /** Estimated from list prices; absent for a model whose price is unknown. */
  costUsd?: number;
  /** Tool calls the model asked for. */
  toolCalls: number;
  /** Why the call ended without an answer (`end` is when that was recorded). */
  interrupted?: CallInterruption;
};

/**
 * A run in the tree of runs this log holds: the top run, its sub-agents and workers. Each time a run
 * goes on (a resume, a takeover) its agents log under new run ids; those are the same node, so
 * `runId` is the first id it had and `parent.runId` its parent node's.
 */
export type RunNode = { runId: string; agent: string; parent?: EventParent; /** How many times it went on after a stop. */ resumed: number };

/** What changed in the plan, when, and which call (tool or model) had started last. */
export type PlanRevision = { seq: number; time: number; agent: string; cause?: string; title: string; changes: string[] };

/** A planner that gave nothing usable (`planning-failed`): what was wrong and what the run did instead. */
export type PlanningFailure = { time: number; agent: string; workflow: string; round: number; errors: string[]; instead: PlanFallback };

export type RunTotals = { modelCalls: number; inputTokens: number; outputTokens: number; toolCalls: number; costUsd?: number; unpricedCalls: number };

/** Everything the page shows about one run, read from its logged events. */
export type RunDetails = {
  run: RunRecord;
  checklist: Checklist | null;
  /** Every tool call, oldest first, with previews of its arguments and result. */
  toolCalls: ToolCallEntry[];
  /** Every model call, oldest first. */
  modelCalls: ModelCallEntry[];
  totals: RunTotals;
  /** The runs that logged events here, in order of their first event. */
  runs: RunNode[];
  /** Every run id of the log, to the node (the `RunNode.runId`) it belongs to. */
  runAliases: Record<string, string>;
  /** Workflow runs (by node) planning now, and the round. */
  planning: Record<string, number>;
  /** Model calls so far per node. */
  callsPerRun: Record<string, number>;
  revisions: PlanRevision[];
  /** Calls waiting for the user's decision (only while the run awaits approval). */
  pending: PendingCall[];
  /** Context-folding notices, oldest first. */
  folds: ({ time: number } & ContextFoldedEvent)[];
  /** Each time a workflow's planner gave nothing usable and the run went on without its plan, oldest first. */
  planningFailures: PlanningFailure[];
  /** The sequence number of the last event read: the page streams from here. */
  lastSeq: number;
};

export function emptyDetails(run: RunRecord): RunDetails {
  return {
    run,
    checklist: null,
    toolCalls: [],
    modelCalls: [],
    totals: { modelCalls: 0, inputTokens: 0, outputTokens: 0, toolCalls: 0, unpricedCalls: 0 },
    runs: [],
    runAliases: {},
    planning: {},
    callsPerRun: {},
    revisions: [],
    pending: [],
    folds: [],
    planningFailures: [],
    lastSeq: 0,
  };
}

function preview(text: string): Preview {
  return text.length > PREVIEW_CHARS ? { text: text.slice(0, PREVIEW_CHARS), cut: true } : { text, cut: false };
}

const INTERRUPTIONS: Record<CallInterruption, string> = {
  stopped: "interrupted: the run was stopped before this call ended",
  killed: "interrupted: the run's process ended (killed) before this call did; the model was told it may or may not have taken effect",
  paused: "paused for the user: the tool is called again when the run goes on",
};

/** A model call as a person tells it apart: its agent, its number in its run and, when known, what it was for. */
export function modelCallLabel(call: Pick<ModelCallEntry, "agent" | "callInRun" | "purpose">): string {
  return `${call.agent} · call ${call.callInRun}${call.purpose ? ` (${call.purpose})` : ""}`;
}

/** What an interrupted call's end means, in words. */
export function interruptionText(why: CallInterruption): string {
  return INTERRUPTIONS[why];
}

/** The tool calls the page lists in full. */
export function recentToolCalls(details: RunDetails): ToolCallEntry[] {
  return details.toolCalls.slice(-RECENT_TOOL_CALLS);
}

/** Folds one logged event into a run's details: the server replays the log with it, the page applies streamed events. */
export function applyRunEvent(details: RunDetails, logged: LoggedEvent): void {
  const { seq, event } = logged;
  if (seq <= details.lastSeq) return;
  details.lastSeq = seq;
  noteRun(details, event);
  switch (event.type) {
    case "checklist-updated":
      noteRevision(details, seq, event);
      details.checklist = event.checklist;
      break;
    case "workflow-planning-started":
      details.planning[nodeOf(details, event.runId)] = event.round;
      break;
    case "workflow-planned":
      delete details.planning[nodeOf(details, event.runId)];
      break;
    case "model-start": {
      const node = nodeOf(details, event.runId);
      const round = details.planning[node];
      details.modelCalls.push({
        n: details.modelCalls.length + 1,
        agent: event.agent,
        ...scope(event),
        step: event.step,
        callInRun: (details.callsPerRun[node] = (details.callsPerRun[node] ?? 0) + 1),
        ...(round !== undefined ? { purpose: `planning, round ${round}` } : {}),
        ...(event.model !== undefined ? { model: event.model } : {}),
        start: event.time,
        startSeq: seq,
        messageCount: event.messageCount,
        ...(event.request?.ephemeralFrom !== undefined ? { ephemeralFrom: event.request.ephemeralFrom } : {}),
        toolCalls: 0,
      });
      details.totals.modelCalls++;
      break;
    }
    case "model-end": {
      const call = details.modelCalls.findLast((c) => c.end === undefined && c.agent === event.agent && c.runId === event.runId && c.step === event.step);
      if (!call) break;
      call.end = event.time;
      call.endSeq = seq;
      call.toolCalls = event.message.toolCalls?.length ?? 0;
      if (event.usage) {
        call.usage = event.usage;
        details.totals.inputTokens += event.usage.inputTokens;
        details.totals.outputTokens += event.usage.outputTokens;
        const cost = call.model === undefined ? undefined : estimateCostUsd(call.model, event.usage);
        if (cost === undefined) details.totals.unpricedCalls++;
        else {
          call.costUsd = cost;
          details.totals.costUsd = (details.totals.costUsd ?? 0) + cost;
        }
      }
      break;
    }
    case "tool-start":
      details.toolCalls.push({ id: event.call.id, name: event.call.name, arguments: preview(event.call.arguments), agent: event.agent, ...scope(event), start: event.time, startSeq: seq });
      details.totals.toolCalls++;
      break;
    case "tool-end": {
      const result = { text: preview(event.result.text), isError: event.result.isError, refused: event.refused };
      const started = details.toolCalls.findLast((call) => call.id === event.call.id && call.runId === event.runId && call.end === undefined);
      if (started) {
        started.result = result;
        started.end = event.time;
        started.endSeq = seq;
      } else {
        // Refused or decided calls end without having started.
        details.toolCalls.push({ id: event.call.id, name: event.call.name, arguments: preview(event.call.arguments), agent: event.agent, ...scope(event), start: event.time - event.durationMs, end: event.time, startSeq: seq, endSeq: seq, result });
        details.totals.toolCalls++;
      }
      break;
    }
    case "call-interrupted": {
      const call =
        event.kind === "model"
          ? details.modelCalls.findLast((c) => c.end === undefined && c.agent === event.agent && c.runId === event.runId && c.step === event.step)
          : details.toolCalls.findLast((c) => c.end === undefined && c.id === event.callId && c.runId === event.runId);
      if (!call) break;
      call.end = event.time;
      call.endSeq = seq;
      call.interrupted = event.why;
      break;
    }
    case "approval-requested":
      details.pending = event.calls;
      break;
    case "run-resumed":
      details.pending = [];
      break;
    case "planning-failed":
      details.planningFailures.push({ time: event.time, agent: event.agent, workflow: event.workflow, round: event.round, errors: event.errors, instead: event.instead });
      break;
    case "context-folded": {
      const { type: _type, agent: _agent, runId: _runId, parent: _parent, ...fold } = event;
      details.folds.push(fold);
      break;
    }
    default:
      break;
  }
}

function scope(event: AgentEvent): { runId?: string } {
  return event.runId !== undefined ? { runId: event.runId } : {};
}

/** The node (its first run id) a run id of the log belongs to. */
export function nodeOf(details: Pick<RunDetails, "run" | "runAliases">, runId: string | undefined): string {
  const id = runId ?? details.run.id;
  return details.runAliases[id] ?? id;
}

/**
 * Places the event's run in the tree: a run id seen before keeps its node; a new one joins the node
 * of the same agent under the same parent node, call and step (the same run, gone on after a stop),
 * or starts a node of its own.
 */
function noteRun(details: RunDetails, event: AgentEvent): void {
  const runId = event.runId ?? details.run.id;
  if (details.runAliases[runId] !== undefined) return;
  const parent = event.parent ? { ...event.parent, runId: nodeOf(details, event.parent.runId) } : undefined;
  const same = details.runs.find(
    (node) =>
      node.agent === event.agent &&
      node.parent?.runId === parent?.runId &&
      node.parent?.toolCallId === parent?.toolCallId &&
      node.parent?.stepId === parent?.stepId,
  );
  if (same) {
    same.resumed++;
    details.runAliases[runId] = same.runId;
    return;
  }
  details.runs.push({ runId, agent: event.agent, ...(parent ? { parent } : {}), resumed: 0 });
  details.runAliases[runId] = runId;
}

function noteRevision(details: RunDetails, seq: number, event: Extract<AgentEvent, { type: "checklist-updated" }>): void {
  const changes = checklistChanges(details.checklist, event.checklist);
  if (changes.length === 0) return;
  const cause = latestCall(details);
  details.revisions.push({
    seq,
    time: event.time,
    agent: event.agent,
    ...(cause ? { cause } : {}),
    title: event.checklist.title,
    changes,
  });
  if (details.revisions.length > REVISIONS_KEPT) details.revisions.splice(0, details.revisions.length - REVISIONS_KEPT);
}

/** The call that started last: a plan changes while (or just after) a tool or a workflow's model step runs. */
function latestCall(details: RunDetails): string | undefined {
  const tool = details.toolCalls.at(-1);
  const model = details.modelCalls.at(-1);
  if (model && (!tool || model.startSeq > tool.startSeq)) return `model call #${model.n}`;
  return tool ? `${tool.name} (${tool.id})` : undefined;
}

/** What a person would say changed between two versions of a plan, one line each. */
export function checklistChanges(before: Checklist | null, after: Checklist): string[] {
  if (!before || before.title !== after.title || before.kind !== after.kind) {
    return [`new ${after.kind === "workflow" ? "workflow plan" : after.kind === "plan" ? "plan" : after.kind === "tasks" ? "task board" : "todo list"} "${after.title}" with ${after.items.length} item(s)`];
  }
  const old = new Map(before.items.map((item) => [item.id, item]));
  const changes: string[] = [];
  for (const item of after.items) {
    const was = old.get(item.id);
    old.delete(item.id);
    if (!was) changes.push(`added ${item.id} "${readableLabel(item.label)}"`);
    else changes.push(...itemChanges(was, item));
  }
  for (const gone of old.values()) changes.push(`removed ${gone.id} "${readableLabel(gone.label)}"`);
  return changes;
}

function itemChanges(was: ChecklistItem, now: ChecklistItem): string[] {
  const changes: string[] = [];
  const name = `${now.id} "${readableLabel(now.label)}"`;
  if (was.label !== now.label) changes.push(`renamed ${now.id} "${readableLabel(was.label)}" to "${readableLabel(now.label)}"`);
  if (was.status !== now.status) changes.push(`${name}: ${was.status.replace("_", " ")} → ${now.status.replace("_", " ")}`);
  if ((was.owner ?? null) !== (now.owner ?? null)) changes.push(`${name} now owned by ${now.owner ?? "nobody"}`);
  if (was.blockedBy.join() !== now.blockedBy.join()) changes.push(`${name} now waits for ${now.blockedBy.join(", ") || "nothing"}`);
  return changes;
}
