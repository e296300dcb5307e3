import type { ToolCallRecord } from "../run-details.js";
import { card, el, formatMs, getJson, prettyJson, runPath } from "./dom.js";
import { interruptionText, recentToolCalls, type Preview, type RunDetails, type ToolCallEntry } from "./run-view.js";
import { callArguments } from "./call-arguments.js";
import { lineDiff } from "./text-diff.js";

/** The latest tool calls, newest first; each opens to its whole arguments and result, a file change as a diff. */
export function toolCallsSection(details: RunDetails, opened: ReadonlySet<string>, toggle: (key: string, open: boolean) => void): HTMLElement {
  const recent = recentToolCalls(details).slice().reverse();
  return card(
    "tool-calls",
    "Recent tool calls",
    recent.length === 0
      ? el("p", { class: "empty", text: "None yet." })
      : el("ul", { class: "tools" }, recent.map((call) => toolCallItem(details.run.id, call, opened, toggle))),
  );
}

function toolCallKey(callId: string, runId: string | undefined): string {
  return (runId ?? "") + "/" + callId;
}

/** Finished calls already fetched, by run and key: a redraw while the run goes on does not fetch them again. */
const fetched = new Map<string, ToolCallRecord>();

function toolCallItem(topRunId: string, call: ToolCallEntry, opened: ReadonlySet<string>, toggle: (key: string, open: boolean) => void): HTMLElement {
  const result = call.result;
  const key = toolCallKey(call.id, call.runId);
  const outcome = call.interrupted ? interruptionText(call.interrupted) : !result ? "running…" : (result.refused ? "refused: " : "") + shown(result.text);
  const state = call.interrupted ? "interrupted" : !result ? "running" : result.isError ? "error" : "";
  const body = el("div", { class: "full" }, el("p", { class: "empty", text: "Loading…" }));
  const item = el(
    "details",
    { class: "tool " + state, "data-call": call.id, "data-name": call.name, "data-state": state || "done", open: opened.has(key) },
    el("summary", {}, el("strong", { text: call.name }), " " + shown(call.arguments).slice(0, 160) + " → " + outcome.slice(0, 200)),
    body,
  );
  const load = () => {
    const known = fetched.get(topRunId + "/" + key);
    if (known) return body.replaceChildren(...toolCallBody(known));
    void getJson<ToolCallRecord>(runPath(topRunId, "/tool-calls/" + encodeURIComponent(call.id) + (call.runId ? "?run=" + encodeURIComponent(call.runId) : "")))
      .then((record) => {
        if (record.result || record.interrupted) fetched.set(topRunId + "/" + key, record);
        body.replaceChildren(...toolCallBody(record));
      })
      .catch((error: unknown) => body.replaceChildren(el("p", { class: "problem", text: String(error instanceof Error ? error.message : error) })));
  };
  item.addEventListener("toggle", () => {
    toggle(key, item.open);
    if (item.open) load();
  });
  if (item.open) load();
  return item;
}

function shown(preview: Preview): string {
  return preview.text + (preview.cut ? "…" : "");
}

/** A call's arguments and result in full; for write_file and edit_file, the change as a diff. */
export function toolCallBody(record: ToolCallRecord): HTMLElement[] {
  const parts: HTMLElement[] = [];
  const change = fileChange(record);
  if (change) parts.push(change);
  parts.push(el("h3", { text: "Arguments" }), el("pre", { class: "args", text: prettyJson(record.call.arguments) }));
  if (record.interrupted) parts.push(el("h3", { text: "No result" }), el("p", { class: "interrupted", text: interruptionText(record.interrupted) }));
  if (record.result) {
    const how = (record.refused ? "Refused" : record.result.isError ? "Error" : "Result") + (record.durationMs !== undefined ? " · " + formatMs(record.durationMs) : "");
    parts.push(el("h3", { text: how }), el("pre", { class: "result" + (record.result.isError ? " error" : ""), text: record.result.text }));
  }
  return parts;
}

function fileChange(record: ToolCallRecord): HTMLElement | null {
  const args = callArguments(record.call);
  const path = typeof args["path"] === "string" ? args["path"] : "?";
  if (record.call.name === "write_file" && typeof args["content"] === "string") {
    const before = record.fileBefore ?? null;
    const title = before === null ? `${path}: new file (as far as this run knows)` : `${path}: changes since this run last wrote it`;
    return diffBlock(title, lineDiff(before ?? "", args["content"]));
  }
  if (record.call.name === "edit_file" && typeof args["old_text"] === "string" && typeof args["new_text"] === "string") {
    return diffBlock(`${path}: edit${args["replace_all"] === true ? " (every occurrence)" : ""}`, lineDiff(args["old_text"], args["new_text"]));
  }
  return null;
}

function diffBlock(title: string, lines: ReturnType<typeof lineDiff>): HTMLElement {
  return el(
    "div",
    { class: "diff" },
    el("p", { class: "diff-title", text: title }),
    el(
      "pre",
      {},
      lines.map((line) => el("span", { class: line.op === "+" ? "add" : line.op === "-" ? "del" : "same", text: line.op + " " + line.text + "\n" })),
    ),
  );
}
