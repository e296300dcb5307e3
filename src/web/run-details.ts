import { boundedText } from "../core/bounded-quote.js";
import type { AgentEvent } from "../core/events.js";
import type { AssistantMessage, Message, ToolCall } from "../core/messages.js";
import type { Usage } from "../core/model.js";
import { applyRequestDelta } from "../core/request-delta.js";
import type { ToolResult } from "../core/tool.js";
import { estimateCostUsd } from "../models/model-prices.js";
import "../planning/folding/folding-events.js";
import "../runs/checklist.js";
import type { CallInterruption } from "../runs/open-calls.js";
import { loggedEvents } from "../runs/run-events.js";
import type { RunStore } from "../stores/run-store.js";
import { callArguments } from "./page/call-arguments.js";
import { applyRunEvent, emptyDetails, type RunDetails } from "./page/run-view.js";

/** Replays a run's events into what the page draws; undefined when there is no such run. */
export async function runDetails(store: RunStore, runId: string): Promise<RunDetails | undefined> {
  const run = await store.getRun(runId);
  if (!run) return undefined;
  const details = emptyDetails(run);
  for await (const logged of loggedEvents(store, runId)) applyRunEvent(details, logged);
  if (run.status !== "awaiting-user") details.pending = [];
  return details;
}

/** One model call in full: the exact messages it received, where their ephemeral tail starts, and its answer. */
export type ModelCallRecord = {
  n: number;
  agent: string;
  runId?: string;
  step: number;
  model?: string;
  /** Null when the call was logged before requests were recorded. */
  messages: Message[] | null;
  ephemeralFrom?: number;
  toolCount: number;
  response?: AssistantMessage;
  usage?: Usage;
  /** Estimated from list prices; absent for a model whose price is unknown. */
  costUsd?: number;
  durationMs?: number;
  /** Why the call never answered, when the run layer recorded its end. */
  interrupted?: CallInterruption;
  /** A call that ended without an answer (cut off, failed, still streaming): the text it streamed so far, its start when long. */
  streamedText?: string;
};

/** How much of a call's streamed text without an answer is shown: a response may hold millions of characters. */
const STREAMED_TEXT_SHOWN = 100_000;

/**
 * Rebuilds model call `n` (counted from 1 in log order, nested runs' calls included) from the
 * request deltas its run logged: each run's requests form a chain, one delta after another.
 */
export async function modelCallRecord(store: RunStore, runId: string, n: number): Promise<ModelCallRecord | undefined> {
  const chains = new Map<string, Message[]>();
  let seen = 0;
  let record: ModelCallRecord | undefined;
  let started = 0;
  let streamed = "";
  for await (const { event } of loggedEvents(store, runId)) {
    if (record) {
      if (event.type === "text-delta" && sameCall(record, event) && streamed.length <= STREAMED_TEXT_SHOWN) streamed += event.text;
      if (event.type === "call-interrupted" && event.kind === "model" && sameCall(record, event)) {
        record.interrupted = event.why;
        record.durationMs = event.time - started;
        break;
      }
      if (event.type === "model-end" && sameCall(record, event)) {
        record.response = event.message;
        record.durationMs = event.durationMs;
        if (event.usage) {
          record.usage = event.usage;
          const cost = record.model === undefined ? undefined : estimateCostUsd(record.model, event.usage);
          if (cost !== undefined) record.costUsd = cost;
        }
        return record;
      }
      continue;
    }
    if (event.type !== "model-start") continue;
    const key = `${event.runId ?? ""}\n${event.agent}`;
    const messages = event.request ? applyRequestDelta(chains.get(key) ?? [], event.request) : null;
    if (messages) chains.set(key, messages);
    else chains.delete(key);
    if (++seen !== n) continue;
    started = event.time;
    record = {
      n,
      agent: event.agent,
      ...(event.runId !== undefined ? { runId: event.runId } : {}),
      step: event.step,
      ...(event.model !== undefined ? { model: event.model } : {}),
      messages,
      ...(event.request?.ephemeralFrom !== undefined ? { ephemeralFrom: event.request.ephemeralFrom } : {}),
      toolCount: event.toolCount,
    };
  }
  if (record && streamed) record.streamedText = boundedText(streamed, STREAMED_TEXT_SHOWN);
  return record;
}

/** Whether an event of a model call (its text, its end, its interruption) is that call's. */
function sameCall(record: ModelCallRecord, event: { agent: string; runId?: string; step: number }): boolean {
  return event.agent === record.agent && event.runId === record.runId && event.step === record.step;
}

/**
 * One tool call in full. For a file write, `fileBefore` is the file's content before it as the run
 * itself last wrote it (null when the run had not: an added file, as far as the run knows).
 */
export type ToolCallRecord = {
  call: ToolCall;
  agent: string;
  runId?: string;
  result?: ToolResult;
  refused?: boolean;
  durationMs?: number;
  /** Why the call ended without a result. */
  interrupted?: CallInterruption;
  fileBefore?: string | null;
};

/** Finds tool call `callId` (of nested run `innerRunId` when given) and what the run knew of the file it writes. */
export async function toolCallRecord(store: RunStore, runId: string, callId: string, innerRunId?: string): Promise<ToolCallRecord | undefined> {
  const files = new Map<string, string>();
  let record: ToolCallRecord | undefined;
  const matches = (event: AgentEvent): boolean => innerRunId === undefined || event.runId === innerRunId;
  let started = 0;
  for await (const { event } of loggedEvents(store, runId)) {
    if (event.type === "tool-start" && event.call.id === callId && matches(event) && !record) {
      record = opened(event, files);
      started = event.time;
    }
    if (record && event.type === "call-interrupted" && event.kind === "tool" && event.callId === callId && event.runId === record.runId) {
      record.interrupted = event.why;
      record.durationMs = event.time - started;
      return record;
    }
    if (event.type !== "tool-end") continue;
    if (event.call.id === callId && matches(event)) {
      // A refused or decided call ends without having started.
      record ??= opened(event, files);
      record.result = event.result;
      record.refused = event.refused;
      record.durationMs = event.durationMs;
      return record;
    }
    if (!event.result.isError) followFile(files, event.call);
  }
  return record;
}

function opened(event: Extract<AgentEvent, { type: "tool-start" | "tool-end" }>, files: ReadonlyMap<string, string>): ToolCallRecord {
  const path = writtenPath(event.call);
  return {
    call: event.call,
    agent: event.agent,
    ...(event.runId !== undefined ? { runId: event.runId } : {}),
    ...(path !== undefined ? { fileBefore: files.get(path) ?? null } : {}),
  };
}

function writtenPath(call: ToolCall): string | undefined {
  if (call.name !== "write_file") return undefined;
  const path = callArguments(call)["path"];
  return typeof path === "string" ? path : undefined;
}

/** Keeps the content of files the run wrote, and edited after writing, as the log tells it. */
function followFile(files: Map<string, string>, call: ToolCall): void {
  const args = callArguments(call);
  const { path, content, old_text: oldText, new_text: newText, replace_all: all } = args;
  if (typeof path !== "string") return;
  if (call.name === "write_file" && typeof content === "string") files.set(path, content);
  if (call.name === "edit_file" && typeof oldText === "string" && typeof newText === "string") {
    const known = files.get(path);
    if (known !== undefined) files.set(path, all === true ? known.split(oldText).join(newText) : known.replace(oldText, () => newText));
  }
}
