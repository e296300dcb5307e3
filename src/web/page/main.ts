import type { ApprovalDecision } from "../../core/approval.js";
import type { LoggedEvent } from "../../stores/run-store.js";
import { formatDuration } from "../../runs/durations.js";
import type { RunFigures } from "../../runs/run-figures.js";
import type { ListedRun } from "../viewer-server.js";
import type { ModelCallRecord, ToolCallRecord } from "../run-details.js";
import { pendingSection, type ApprovalState, type ShownDetails } from "./approvals-view.js";
import { checklistSection } from "./checklist-view.js";
import { badge, el, formatCost, getJson, HttpError, runPath } from "./dom.js";
import { foldSection, planningFailuresSection, plansSection, revisionsSection, type PlanJson } from "./history-view.js";
import { contextChart, modelCallPanel, modelCallsSection, totalsLine } from "./model-calls-view.js";
import { runTreeSection } from "./run-tree-view.js";
import { applyRunEvent, modelCallLabel } from "./run-view.js";
import { driverText, offerModels, wireRunFilter, type RunListFilter } from "./run-list-view.js";
import { timelineSection } from "./timeline-view.js";
import { toolCallBody, toolCallsSection } from "./tool-calls-view.js";
import { takeToken, tokenHeaders, withToken } from "./viewer-token.js";

/** The opened call: which one, and its panel once loaded (kept across redraws). */
type Opened = { key: string; panel: HTMLElement | null };

const state = {
  runs: [] as ListedRun[],
  models: new Set<string>(),
  filter: { status: "", strategy: "", model: "", q: "" } as RunListFilter,
  selected: null as string | null,
  details: null as ShownDetails | null,
  source: null as EventSource | null,
  plans: [] as PlanJson[],
  pendingKey: "",
  opened: null as Opened | null,
  openTools: new Set<string>(),
};

const approvals: ApprovalState = {
  decisions: {} as Record<string, ApprovalDecision>,
  problem: "",
  redraw: (force) => renderDetails(force),
  send: () => void sendDecisions(),
};

const byId = (id: string): HTMLElement => document.getElementById(id)!;

const filterForm = byId("run-filter") as HTMLFormElement;

function renderRuns(): void {
  const now = Date.now();
  byId("runs").replaceChildren(
    ...(state.runs.length === 0 ? [el("p", { class: "empty", text: hasFilter() ? "No run matches." : "No runs yet." })] : []),
    ...state.runs.map((run) => {
      const driver = driverText(run, now);
      return el(
        "button",
        { type: "button", "data-run": run.id, "data-strategy": run.strategy, "aria-current": run.id === state.selected ? "true" : "false", onclick: () => void select(run.id) },
        el("span", { class: "task", text: run.task }),
        el("span", { class: "meta" }, badge(run.status), ` ${run.strategy} · ${new Date(run.createdAt).toLocaleString()}`),
        el("span", { class: "meta figures" }, el("code", { text: run.id.slice(0, 8) }), " · " + runFiguresText(run.figures)),
        driver ? el("span", { class: "meta driver", text: driver }) : null,
      );
    }),
  );
  if (state.runs.length === 0 && !hasFilter() && !state.selected) {
    byId("run").replaceChildren(el("p", { class: "empty" }, "No runs yet. Start one with ", el("code", { text: 'stepwise run "<task>"' }), "; it shows up here."));
  }
}

/** A run's time, and its estimated cost when its model has a known price. */
function runFiguresText(figures: RunFigures): string {
  const cost = figures.modelCalls === 0 ? "" : figures.costUsd !== undefined ? " · " + formatCost(figures.costUsd) : " · cost n/a";
  return formatDuration(figures.durationMs) + cost;
}

/** The run's driver under its header, as the list has it (the list is read more often: its lease is newer). */
function driverLine(run: ShownDetails["run"]): HTMLElement | null {
  const listed = state.runs.find((other) => other.id === run.id) ?? run;
  const text = driverText(listed, Date.now());
  return text ? el("div", { class: "meta driver", id: "run-driver", text }) : null;
}

function hasFilter(): boolean {
  return Object.values(state.filter).some((value) => value !== "");
}

function renderDetails(forcePending = false): void {
  const details = state.details;
  if (!details) return;
  const { run } = details;
  const key = [run.status, Boolean(details.resuming), details.resumeError ?? "", details.pending.map((call) => call.id).join(",")].join(":");
  const shown = document.getElementById("pending") ?? document.getElementById("pending-sent");
  const pending = !forcePending && key === state.pendingKey && shown ? shown : pendingSection(details, approvals);
  state.pendingKey = key;
  const sections = [
    el(
      "div",
      { class: "card", id: "run-header" },
      el("h2", {}, run.task + " ", badge(run.status)),
      el("div", { class: "meta", text: `${run.strategy} · ${run.model} · ${run.id}` }),
      driverLine(run),
      el("div", { class: "meta totals", text: totalsLine(details.totals) }),
    ),
    pending,
    planningFailuresSection(details),
    checklistSection(details.checklist),
    run.answer ? el("div", { class: "card", id: "answer" }, el("h2", { text: "Final answer" }), el("p", { class: "answer", text: run.answer })) : null,
    timelineSection(details, { openModelCall, openToolCall }),
    state.opened?.panel ?? null,
    contextChart(details, openModelCall),
    modelCallsSection(details, openModelCall),
    toolCallsSection(details, state.openTools, (toolKey, open) => (open ? state.openTools.add(toolKey) : state.openTools.delete(toolKey))),
    runTreeSection(details),
    revisionsSection(details),
    foldSection(details),
    plansSection(state.plans),
  ];
  byId("run").replaceChildren(...sections.filter((section): section is HTMLElement => section !== null));
}

function closeOpened(): void {
  state.opened = null;
  renderDetails();
}

/** Opens one call in a panel; the panel stays across redraws until closed or another call is opened. */
function openPanel(key: string, load: () => Promise<HTMLElement>): void {
  const opened: Opened = { key, panel: el("div", { class: "card", id: "call-loading" }, el("p", { class: "empty", text: "Loading…" })) };
  state.opened = opened;
  renderDetails();
  void load()
    .catch((error: unknown) => el("div", { class: "card", id: "call-problem" }, el("p", { class: "problem", text: error instanceof Error ? error.message : String(error) })))
    .then((panel) => {
      if (state.opened !== opened) return;
      opened.panel = panel;
      renderDetails();
      panel.scrollIntoView({ block: "nearest" });
    });
}

function openModelCall(n: number): void {
  const runId = state.selected!;
  const listed = state.details?.modelCalls[n - 1];
  openPanel("model/" + n, async () => {
    const record = await getJson<ModelCallRecord>(runPath(runId, "/calls/" + n));
    return modelCallPanel(record, listed ? modelCallLabel(listed) : record.agent, closeOpened);
  });
}

function openToolCall(callId: string, innerRunId: string): void {
  const runId = state.selected!;
  const query = innerRunId !== runId ? "?run=" + encodeURIComponent(innerRunId) : "";
  openPanel("tool/" + innerRunId + "/" + callId, async () => {
    const record = await getJson<ToolCallRecord>(runPath(runId, "/tool-calls/" + encodeURIComponent(callId) + query));
    return el(
      "div",
      { class: "card", id: "tool-call", "data-call": callId },
      el("h2", {}, "Tool call ", el("code", { text: record.call.name }), " ", el("button", { type: "button", class: "action close", onclick: closeOpened, text: "Close" })),
      el("div", { class: "meta", text: record.agent + " · " + callId }),
      ...toolCallBody(record),
    );
  });
}

async function sendDecisions(): Promise<void> {
  const runId = state.selected!;
  const response = await fetch(runPath(runId, "/decisions"), {
    method: "POST",
    headers: { "content-type": "application/json", ...tokenHeaders() },
    body: JSON.stringify({ decisions: approvals.decisions }),
  });
  approvals.decisions = {};
  if (!response.ok) {
    approvals.problem = ((await response.json().catch(() => ({}))) as { error?: string }).error ?? response.statusText;
    return renderDetails(true);
  }
  if (state.details) state.details.resuming = true;
  renderDetails(true);
  void refreshRuns();
}

function follow(runId: string, afterSeq: number): void {
  state.source?.close();
  const source = new EventSource(withToken(runPath(runId, "/events?after=" + afterSeq)));
  state.source = source;
  const connection = byId("connection");
  source.onopen = () => (connection.textContent = "live");
  source.onerror = () => (connection.textContent = "reconnecting…");
  let redraw = 0;
  source.onmessage = (message: MessageEvent<string>) => {
    if (state.selected !== runId || !state.details) return;
    const event = JSON.parse(message.data) as LoggedEvent["event"];
    applyRunEvent(state.details, { seq: Number(message.lastEventId), event });
    if (event.type === "run-end" || event.type === "approval-requested" || event.type === "run-resumed") void refreshRuns();
    if ((event.type === "checklist-updated" && event.checklist.kind === "plan") || event.type === "run-end") void loadPlans(runId);
    cancelAnimationFrame(redraw);
    redraw = requestAnimationFrame(() => renderDetails());
  };
}

async function loadPlans(runId: string): Promise<void> {
  state.plans = await getJson<PlanJson[]>(runPath(runId, "/plans")).catch(() => []);
  if (state.selected === runId) renderDetails();
}

async function reloadDetails(runId: string): Promise<void> {
  const details = await getJson<ShownDetails>(runPath(runId)).catch(() => null);
  if (!details || state.selected !== runId) return;
  state.details = details;
  renderDetails();
}

async function select(runId: string): Promise<void> {
  state.selected = runId;
  approvals.decisions = {};
  approvals.problem = "";
  state.opened = null;
  state.openTools.clear();
  history.replaceState(null, "", "#run=" + encodeURIComponent(runId));
  renderRuns();
  const details = await getJson<ShownDetails>(runPath(runId));
  if (state.selected !== runId) return;
  state.details = details;
  state.plans = [];
  renderDetails(true);
  follow(runId, details.lastSeq);
  void loadPlans(runId);
}

/** Numbers each listing: only the latest is drawn, so an answer for an older filter never wins. */
let listings = 0;

async function refreshRuns(): Promise<void> {
  const query = new URLSearchParams(Object.entries(state.filter).filter(([, value]) => value !== "")).toString();
  const listing = ++listings;
  try {
    const runs = await getJson<ListedRun[]>("/runs" + (query ? "?" + query : ""));
    if (listing !== listings) return;
    state.runs = runs;
  } catch (error) {
    // The viewer's own word when it answered (its token missing, a bad filter); else it is not there.
    byId("connection").textContent = error instanceof HttpError ? error.message : "viewer unreachable";
    return;
  }
  const before = state.models.size;
  for (const run of state.runs) state.models.add(run.model);
  if (state.models.size !== before) offerModels(filterForm, [...state.models].sort());
  renderRuns();
  const current = state.runs.find((run) => run.id === state.selected);
  if (current && state.details && state.details.run.id === current.id) {
    const changed = current.status !== state.details.run.status || current.answer !== state.details.run.answer;
    // Paused again, or continuing here: read the pending calls (and any failure) afresh.
    if ((changed && current.status === "awaiting-user") || state.details.resuming) return reloadDetails(current.id);
    state.details.run = current;
    if (current.status !== "awaiting-user") state.details.pending = [];
    if (changed) renderDetails();
  }
  if (!state.selected && state.runs.length > 0) {
    // #run= may hold a whole id or the start of one (as stepwise runs list shows ids).
    const wanted = new URLSearchParams(location.hash.slice(1)).get("run") ?? "";
    const matching = wanted ? state.runs.filter((run) => run.id.startsWith(wanted)) : [];
    void select(matching.length === 1 ? matching[0]!.id : state.runs[0]!.id);
  }
}

if (window.top !== window.self) {
  // Framed by another page (a browser that ignored the headers saying no page may): show nothing of any
  // run and offer no decision, so no click on the framing page can land on one.
  document.body.replaceChildren(
    el("p", { class: "framed", role: "alert", text: "The Stepwise viewer does not work inside another page. Open it in a tab of its own: " + location.origin + "/" }),
  );
} else {
  takeToken();
  wireRunFilter(filterForm, state.filter, () => void refreshRuns());
  void refreshRuns();
  setInterval(() => void refreshRuns(), 1500);
}
