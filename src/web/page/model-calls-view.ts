import type { Message } from "../../core/messages.js";
import type { ModelCallRecord } from "../run-details.js";
import { card, el, formatCost, formatMs, formatTokens, svg } from "./dom.js";
import { interruptionText, modelCallLabel, type ModelCallEntry, type RunDetails, type RunTotals } from "./run-view.js";

const CHART_WIDTH = 900;
const CHART_HEIGHT = 140;
const CHART_LEFT = 56;

/** Tokens and the estimated cost of the whole run, with what the estimate leaves out. */
export function totalsLine(totals: RunTotals): string {
  if (totals.modelCalls === 0) return "no model calls yet";
  const parts = [
    `${totals.modelCalls} model call(s)`,
    `${totals.toolCalls} tool call(s)`,
    `${formatTokens(totals.inputTokens)} input + ${formatTokens(totals.outputTokens)} output tokens`,
  ];
  if (totals.costUsd !== undefined) {
    parts.push(`${formatCost(totals.costUsd)} estimated at list prices` + (totals.unpricedCalls > 0 ? ` (${totals.unpricedCalls} call(s) of unpriced models left out)` : ""));
  } else parts.push("cost: model price unknown");
  return parts.join(" · ");
}

/** The size of each request, call by call: context folding shows as a drop. */
export function contextChart(details: RunDetails, open: (n: number) => void): HTMLElement | null {
  const calls = details.modelCalls;
  if (calls.length === 0) return null;
  const byTokens = calls.every((call) => call.usage !== undefined || call.end === undefined);
  const size = (call: ModelCallEntry) => (byTokens ? (call.usage?.inputTokens ?? 0) : call.messageCount);
  const most = Math.max(1, ...calls.map(size));
  const step = (CHART_WIDTH - CHART_LEFT) / calls.length;
  const barWidth = Math.max(1, Math.min(28, step - 2));
  const bars = calls.map((call, i) => {
    const height = (size(call) / most) * (CHART_HEIGHT - 20);
    const rect = svg(
      "rect",
      { class: "size-bar", "data-n": call.n, "data-size": size(call), x: (CHART_LEFT + i * step).toFixed(1), y: (CHART_HEIGHT - height).toFixed(1), width: barWidth.toFixed(1), height: height.toFixed(1), role: "button", tabindex: 0 },
      svg("title", {}, `call ${call.n} (${modelCallLabel(call)}): ${formatTokens(size(call))} ${byTokens ? "input tokens" : "messages"}`),
    );
    rect.addEventListener("click", () => open(call.n));
    return rect;
  });
  const folds = details.folds.map((fold) => {
    const index = calls.findIndex((call) => call.start >= fold.time);
    const x = CHART_LEFT + (index === -1 ? calls.length : index) * step - 1;
    return svg("g", { class: "fold-mark" }, svg("line", { x1: x, x2: x, y1: 4, y2: CHART_HEIGHT }), svg("title", {}, `context folded: about ${formatTokens(fold.tokensSaved)} tokens saved`));
  });
  const axis = [
    svg("text", { x: CHART_LEFT - 6, y: 14, "text-anchor": "end" }, formatTokens(most)),
    svg("text", { x: CHART_LEFT - 6, y: CHART_HEIGHT, "text-anchor": "end" }, "0"),
  ];
  return card(
    "context-chart",
    ["Request size ", el("span", { class: "meta", text: `${byTokens ? "input tokens" : "messages"} per model call, in order; dashed lines mark context folding` })],
    svg("svg", { class: "chart", viewBox: `0 0 ${CHART_WIDTH} ${CHART_HEIGHT + 4}`, width: CHART_WIDTH, height: CHART_HEIGHT + 4, role: "img", "aria-label": "request size per model call" }, axis, bars, folds),
  );
}

/** Every model call with its duration, tokens and estimated cost; a row opens the request. */
export function modelCallsSection(details: RunDetails, open: (n: number) => void): HTMLElement | null {
  if (details.modelCalls.length === 0) return null;
  const rows = details.modelCalls.map((call) =>
    el(
      "tr",
      { "data-n": call.n },
      el("td", {}, el("button", { type: "button", class: "link", onclick: () => open(call.n), text: "#" + call.n })),
      el("td", { text: modelCallLabel(call) }),
      el("td", call.interrupted ? { class: "interrupted", title: interruptionText(call.interrupted), text: interruptedTook(call) } : { text: call.end === undefined ? "running…" : formatMs(call.end - call.start) }),
      el("td", { class: "num", text: call.usage ? formatTokens(call.usage.inputTokens) : "—" }),
      el("td", { class: "num", text: call.usage ? formatTokens(call.usage.outputTokens) : "—" }),
      el("td", { class: "num", text: call.costUsd !== undefined ? formatCost(call.costUsd) : "—", title: call.costUsd === undefined ? "no list price known for " + (call.model ?? "this model") : "estimated from list prices" }),
    ),
  );
  return card(
    "model-calls",
    ["Model calls ", el("span", { class: "meta", text: "duration, tokens and estimated cost of each; open one to read its request" })],
    el(
      "div",
      { class: "scroll" },
      el("table", { class: "calls" }, el("thead", {}, el("tr", {}, ["call", "agent", "took", "input", "output", "est. cost"].map((h) => el("th", { text: h })))), el("tbody", {}, rows)),
    ),
  );
}

/** How long an interrupted call ran: known when the run stopped it, not when its process was killed (the log only says when it started). */
function interruptedTook(call: ModelCallEntry): string {
  return call.interrupted === "killed" ? "interrupted: its process was killed" : `interrupted after ${formatMs((call.end ?? call.start) - call.start)}`;
}

/** One model call as the model received it (`label` names it as the run's list does): every message, the ephemeral tail marked, then its answer. */
export function modelCallPanel(record: ModelCallRecord, label: string, close: () => void): HTMLElement {
  const tail = record.ephemeralFrom;
  const messages = record.messages;
  const meta = [
    label,
    record.model,
    record.durationMs !== undefined ? formatMs(record.durationMs) + (record.interrupted ? " until " + interruptionText(record.interrupted) : "") : undefined,
    record.usage ? `${formatTokens(record.usage.inputTokens)} in / ${formatTokens(record.usage.outputTokens)} out tokens` : undefined,
    record.costUsd !== undefined ? formatCost(record.costUsd) + " (estimate)" : record.usage ? "cost unknown" : undefined,
    `${record.toolCount} tool(s) offered`,
  ].filter((part): part is string => part !== undefined);
  return el(
    "div",
    { class: "card", id: "model-call", "data-n": record.n },
    el("h2", {}, `Model call #${record.n} `, el("button", { type: "button", class: "action close", onclick: close, text: "Close" })),
    el("div", { class: "meta", text: meta.join(" · ") }),
    messages === null
      ? el("p", { class: "empty", text: "This call was logged before requests were recorded: only its size is known." })
      : el(
          "ol",
          { class: "messages" },
          messages.map((message, i) => messageItem(message, tail !== undefined && i >= tail, tail !== undefined && i === tail)),
        ),
    record.response ? el("h3", { text: "Answer" }) : null,
    record.response ? el("ul", { class: "messages answer" }, messageItem(record.response, false, false)) : null,
    !record.response && record.streamedText !== undefined ? el("h3", { text: "Streamed so far (no answer came)" }) : null,
    !record.response && record.streamedText !== undefined ? el("pre", { class: "streamed", text: record.streamedText }) : null,
  );
}

function messageItem(message: Message, inTail: boolean, firstOfTail: boolean): HTMLElement {
  const name = message.role === "tool" ? ` ${message.name} (${message.toolCallId})` : "";
  return el(
    "li",
    { class: "message " + message.role + (inTail ? " tail" : ""), "data-role": message.role, "data-tail": inTail || undefined },
    firstOfTail ? el("div", { class: "tail-note", text: "Ephemeral tail: added for this request only (hint, recitation), never kept in memory" }) : null,
    el("div", { class: "role", text: message.role + name }),
    message.content ? el("pre", { text: message.content }) : null,
    message.role === "assistant" && message.toolCalls?.length
      ? el("ul", { class: "asked" }, message.toolCalls.map((call) => el("li", {}, el("code", { text: call.name }), " " + call.arguments)))
      : null,
  );
}
