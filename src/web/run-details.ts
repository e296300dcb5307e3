import type { AgentEvent } from "../core/events.js";
import type { AssistantMessage, Message, ToolCall } from "../core/messages.js";
import type { Usage } from "../core/model.js";
import { applyRequestDelta } from "../core/request-delta.js";
import type { ToolResult } from "../core/tool.js";
import { estimateCostUsd } from "../models/model-prices.js";
import "../planning/folding/folding-events.js";
import "../runs/checklist.js";
import type { LoggedEvent, RunStore } from "../stores/run-store.js";
import { callArguments } from "./page/call-arguments.js";
import { applyRunEvent, emptyDetails, type RunDetails } from "./page/run-view.js";

const PAGE = 1000;

/** Every logged event of a run, page by page, oldest first. */
async function* runEvents(store: RunStore, runId: string): AsyncGenerator<LoggedEvent> {
  let after = 0;
  for (let page = await store.events(runId, 0, PAGE); page.length > 0; page = await store.events(runId, after, PAGE)) {
    for (const logged of page) {
      after = logged.seq;
      yield logged;
    }
  }
}

/** Replays a run's events into what the page draws; undefined when there is no such run. */
export async function runDetails(store: RunStore, runId: string): Promise<RunDetails | undefined> {
  const run = await store.getRun(runId);
  if (!run) return undefined;
  const details = emptyDetails(run);
  for await (const logged of runEvents(store, runId)) applyRunEvent(details, logged);
  if (run.status !== "awaiting-approval") details.pending = [];
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
};

/**
 * Rebuilds model call `n` (counted from 1 in log order, nested runs' calls included) from the
 * request deltas its run logged: each run's requests form a chain, one delta after another.
 */
export async function modelCallRecord(store: RunStore, runId: string, n: number): Promise<ModelCallRecord | undefined> {
  const chains = new Map<string, Message[]>();
  let seen = 0;
  let record: ModelCallRecord | undefined;
  for await (const { event } of runEvents(store, runId)) {
    if (record) {
      if (event.type === "model-end" && event.agent === record.agent && event.runId === record.runId && event.step === record.step) {
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
  return record;
}

/**
 * One tool call in full. For a file write, `fileBefore` is the file's content before it as the run
 * itself last wrote it (null when the run had not: an added file, as far as the run knows).
 */
export type ToolCallRecord = { call: ToolCall; agent: string; runId?: string; result?: ToolResult; refused?: boolean; durationMs?: number; fileBefore?: string | null };

/** Finds tool call `callId` (of nested run `innerRunId` when given) and what the run knew of the file it writes. */
export async function toolCallRecord(store: RunStore, runId: string, callId: string, innerRunId?: string): Promise<ToolCallRecord | undefined> {
  const files = new Map<string, string>();
  let record: ToolCallRecord | undefined;
  const matches = (event: AgentEvent): boolean => innerRunId === undefined || event.runId === innerRunId;
  for await (const { event } of runEvents(store, runId)) {
    if (event.type === "tool-start" && event.call.id === callId && matches(event)) record ??= opened(event, files);
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
