import { layoutDependencyGraph } from "./dependency-layout.js";
import { applyRunEvent } from "./run-details.js";

/**
 * The browser module that draws runs and follows the selected one over SSE. Plain JavaScript, no
 * build step; the graph layout and the event folding are the server's own functions, sent as source.
 */
const BROWSER_CODE = String.raw`
const SVG = "http://www.w3.org/2000/svg";
const MARKS = { todo: "○", in_progress: "◐", done: "✓", abandoned: "⊘", failed: "✗" };
const STATUS_TEXT = { todo: "todo", in_progress: "in progress", done: "done", abandoned: "abandoned", failed: "failed" };
const state = { runs: [], selected: null, details: null, source: null, plans: [], pendingKey: "", decisions: {}, problem: "" };

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children.flat()) node.append(child);
  return node;
}

async function getJson(url) {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error((await response.json().catch(() => ({}))).error || response.statusText);
  return response.json();
}

function badge(status) {
  return el("span", { class: "badge " + status, "data-run-status": status, text: status.replace("-", " ") });
}

function renderRuns() {
  const nav = document.getElementById("runs");
  nav.replaceChildren();
  if (state.runs.length === 0) nav.append(el("p", { class: "empty", text: "No runs yet." }));
  for (const run of state.runs) {
    nav.append(
      el("button", { type: "button", "data-run": run.id, "aria-current": run.id === state.selected ? "true" : "false", onclick: () => select(run.id) },
        el("span", { class: "task", text: run.task }),
        el("span", { class: "meta" }, badge(run.status), " " + run.strategy + " · " + new Date(run.createdAt).toLocaleString()),
      ),
    );
  }
}

function checklistSection(checklist) {
  if (!checklist) return el("div", { class: "card" }, el("h2", { text: "Plan" }), el("p", { class: "empty", text: "No plan yet." }));
  const done = checklist.items.filter((item) => item.status === "done").length;
  const heading = { plan: "Plan", tasks: "Task board", todos: "Todo list", workflow: "Workflow" }[checklist.kind] || "Plan";
  const list = el("ul", { class: "checklist", "data-kind": checklist.kind },
    checklist.items.map((item) =>
      el("li", { "data-item": item.id, "data-status": item.status },
        el("span", { class: "mark", "aria-hidden": "true", text: MARKS[item.status] || "?" }),
        el("span", {},
          el("span", { class: "label", text: item.label }), " ",
          el("span", { class: "status-text", text: "(" + (STATUS_TEXT[item.status] || item.status) + ")" }),
          item.owner ? el("span", { class: "owner", text: " · " + item.owner }) : null,
          item.blockedBy.length ? el("span", { class: "detail", text: " · after " + item.blockedBy.join(", ") }) : null,
          item.detail ? el("div", { class: "detail", text: item.detail }) : null,
        ),
      ),
    ),
  );
  const hasEdges = checklist.items.some((item) => item.blockedBy.length > 0);
  return el("div", { class: "card", id: "checklist" },
    el("h2", {}, (checklist.title === heading ? heading : heading + ": " + checklist.title) + " ", el("span", { class: "meta", text: done + "/" + checklist.items.length + " done" })),
    list,
    hasEdges ? el("h3", { text: "Dependencies" }) : null,
    hasEdges ? dependencyGraph(checklist.items) : null,
  );
}

function dependencyGraph(items) {
  const layout = layoutDependencyGraph(items);
  const pad = 8;
  const at = new Map(layout.nodes.map((node) => [node.id, node]));
  const edges = layout.edges.map((edge) => {
    const from = at.get(edge.from), to = at.get(edge.to);
    const x1 = from.x + layout.nodeWidth + pad, y1 = from.y + layout.nodeHeight / 2 + pad;
    const x2 = to.x + pad - 2, y2 = to.y + layout.nodeHeight / 2 + pad;
    const mid = (x1 + x2) / 2;
    return svg("path", { d: "M" + x1 + "," + y1 + " C" + mid + "," + y1 + " " + mid + "," + y2 + " " + x2 + "," + y2, "marker-end": "url(#arrow)" });
  });
  const boxes = items.map((item) => {
    const node = at.get(item.id);
    const label = item.id + " · " + item.label;
    const shown = label.length > 26 ? label.slice(0, 25) + "…" : label;
    const text = svg("text", { x: node.x + pad + 8, y: node.y + pad + layout.nodeHeight / 2 + 4 });
    text.textContent = shown;
    const title = svg("title");
    title.textContent = label + " (" + (STATUS_TEXT[item.status] || item.status) + ")";
    return svg("g", { "data-node": item.id, "data-status": item.status },
      svg("rect", { x: node.x + pad, y: node.y + pad, width: layout.nodeWidth, height: layout.nodeHeight, rx: 6 }), text, title);
  });
  const width = layout.width + pad * 2, height = layout.height + pad * 2;
  return svg("svg", { class: "graph", viewBox: "0 0 " + width + " " + height, width, height, role: "img", "aria-label": "dependency graph" },
    svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" },
      svg("path", { d: "M0,0 L10,5 L0,10 z" }))),
    edges, boxes);
}

function pendingSection(details) {
  if (details.run.status !== "awaiting-approval" || details.pending.length === 0) return null;
  if (details.resuming) return el("div", { class: "card pending", id: "pending-sent" }, el("p", { text: "Decision sent; continuing the run…" }));
  const card = el("div", { class: "card pending", id: "pending" }, el("h2", { text: "Waiting for your decision" }));
  for (const call of details.pending) card.append(pendingCall(call, details.pending));
  const problem = state.problem || (details.resumeError ? "The last attempt to continue failed: " + details.resumeError : "");
  if (problem) card.append(el("p", { class: "problem", role: "alert", text: problem }));
  return card;
}

function prettyJson(text) {
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
}

function pendingCall(call, all) {
  const decide = (decision) => {
    state.decisions[call.id] = decision;
    state.problem = "";
    const missing = all.filter((c) => !state.decisions[c.id]);
    if (missing.length === 0) sendDecisions();
    else renderDetails();
  };
  const chosen = state.decisions[call.id];
  const box = el("div", { "data-call": call.id });
  if (call.kind === "question") {
    let question = call.arguments;
    try { question = JSON.parse(call.arguments).question || question; } catch {}
    const answer = el("input", { type: "text", "aria-label": "your answer", placeholder: "Your answer" });
    box.append(el("p", {}, el("strong", { text: "The agent asks: " }), question),
      el("div", { class: "actions" }, answer,
        el("button", { type: "button", class: "action approve", onclick: () => decide({ action: "answer", text: answer.value }) }, "Answer")));
  } else {
    const reason = el("input", { type: "text", "aria-label": "reason for rejecting", placeholder: "Why not? (told to the agent)" });
    const editor = el("textarea", { "aria-label": "edited arguments (JSON)", hidden: true, spellcheck: "false" });
    editor.value = prettyJson(call.arguments);
    const saveEdit = el("button", { type: "button", class: "action", hidden: true, onclick: () => {
      let args;
      try { args = JSON.parse(editor.value); } catch (error) { state.problem = "The edited arguments are not valid JSON: " + error.message; return renderDetails(true); }
      if (typeof args !== "object" || args === null || Array.isArray(args)) { state.problem = "The arguments must be a JSON object."; return renderDetails(true); }
      decide({ action: "edit", arguments: args });
    } }, "Run with these arguments");
    box.append(
      el("p", {}, "The agent wants to call ", el("code", { text: call.name }), " with:"),
      el("pre", { text: prettyJson(call.arguments) }),
      el("div", { class: "actions" },
        el("button", { type: "button", class: "action approve", onclick: () => decide({ action: "approve" }) }, "Approve"),
        el("button", { type: "button", class: "action reject", onclick: () => decide({ action: "reject", reason: reason.value }) }, "Reject"),
        reason,
        el("button", { type: "button", class: "action", onclick: () => { editor.hidden = !editor.hidden; saveEdit.hidden = editor.hidden; } }, "Edit"),
      ),
      editor, saveEdit,
    );
  }
  if (chosen) box.append(el("p", { class: "meta", text: "Decided: " + chosen.action + " (waiting for the other calls)" }));
  return box;
}

async function sendDecisions() {
  const runId = state.selected;
  const response = await fetch("/runs/" + encodeURIComponent(runId) + "/decisions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decisions: state.decisions }),
  });
  state.decisions = {};
  if (!response.ok) {
    state.problem = (await response.json().catch(() => ({}))).error || response.statusText;
    return renderDetails(true);
  }
  state.details.resuming = true;
  renderDetails(true);
  refreshRuns();
}

function toolSection(calls) {
  const recent = calls.slice().reverse();
  return el("div", { class: "card tools", id: "tool-calls" }, el("h2", { text: "Recent tool calls" }),
    recent.length === 0 ? el("p", { class: "empty", text: "None yet." }) : el("ul", {}, recent.map((call) => {
      const result = call.result;
      const cls = !result ? "running" : result.isError ? "error" : "";
      const outcome = !result ? "running…" : (result.refused ? "refused: " : "") + result.text;
      return el("li", { class: cls }, el("strong", { text: call.name }), " " + call.arguments.slice(0, 160) + " → " + outcome.slice(0, 200));
    })));
}

function foldSection(folds) {
  if (folds.length === 0) return null;
  return el("div", { class: "card", id: "folds" }, el("h2", { text: "Context folded" }), el("ul", {}, folds.map((fold) =>
    el("li", { text: new Date(fold.time).toLocaleTimeString() + ": " + fold.units.length + " unit(s) folded" +
      (fold.stubbed.length ? ", " + fold.stubbed.length + " result(s) stubbed" : "") + ", about " + fold.tokensSaved + " tokens saved (" +
      fold.tokensBefore + " → " + fold.tokensAfter + ")" }))));
}

function plansSection(plans) {
  if (plans.length === 0) return null;
  return el("div", { class: "card", id: "past-plans" }, el("h2", { text: "Plans in the notebook" }), plans.map((plan) =>
    el("details", { class: "plan" },
      el("summary", {}, plan.name + " ", el("span", { class: "meta", text: "(" + plan.state + ", " + plan.subtasks.length + " subtasks)" })),
      el("p", { text: plan.description }),
      plan.outcome ? el("p", { class: "meta", text: "Outcome: " + plan.outcome }) : null,
      el("ul", {}, plan.subtasks.map((subtask) => el("li", { text: subtask.name + " — " + subtask.state }))))));
}

function renderDetails(forcePending) {
  const root = document.getElementById("run");
  const details = state.details;
  if (!details) return;
  const { run } = details;
  const key = run.status + ":" + Boolean(details.resuming) + ":" + (details.resumeError || "") + ":" + details.pending.map((call) => call.id).join(",");
  const shown = document.getElementById("pending") || document.getElementById("pending-sent");
  const pending = !forcePending && key === state.pendingKey && shown ? shown : pendingSection(details);
  state.pendingKey = key;
  const sections = [
    el("div", { class: "card", id: "run-header" },
      el("h2", {}, run.task + " ", badge(run.status)),
      el("div", { class: "meta", text: run.strategy + " · " + run.model + " · " + run.id })),
    pending,
    checklistSection(details.checklist),
    run.answer ? el("div", { class: "card", id: "answer" }, el("h2", { text: "Final answer" }), el("p", { class: "answer", text: run.answer })) : null,
    foldSection(details.folds),
    toolSection(details.toolCalls),
    plansSection(state.plans),
  ];
  root.replaceChildren(...sections.filter((section) => section !== null));
}

function follow(runId, afterSeq) {
  if (state.source) state.source.close();
  const source = new EventSource("/runs/" + encodeURIComponent(runId) + "/events?after=" + afterSeq);
  state.source = source;
  const connection = document.getElementById("connection");
  source.onopen = () => { connection.textContent = "live"; };
  source.onerror = () => { connection.textContent = "reconnecting…"; };
  let redraw = 0;
  source.onmessage = (message) => {
    if (state.selected !== runId || !state.details) return;
    const event = JSON.parse(message.data);
    applyRunEvent(state.details, { seq: Number(message.lastEventId), event });
    if (event.type === "run-end" || event.type === "approval-requested" || event.type === "run-resumed") refreshRuns();
    if (event.type === "plan-updated" || event.type === "run-end") loadPlans(runId);
    cancelAnimationFrame(redraw);
    redraw = requestAnimationFrame(() => renderDetails());
  };
}

async function loadPlans(runId) {
  state.plans = await getJson("/runs/" + encodeURIComponent(runId) + "/plans").catch(() => []);
  if (state.selected === runId) renderDetails();
}

async function reloadDetails(runId) {
  const details = await getJson("/runs/" + encodeURIComponent(runId)).catch(() => null);
  if (!details || state.selected !== runId) return;
  state.details = details;
  renderDetails();
}

async function select(runId) {
  state.selected = runId;
  state.decisions = {};
  state.problem = "";
  history.replaceState(null, "", "#run=" + encodeURIComponent(runId));
  renderRuns();
  const details = await getJson("/runs/" + encodeURIComponent(runId));
  if (state.selected !== runId) return;
  state.details = details;
  state.plans = [];
  renderDetails(true);
  follow(runId, details.lastSeq);
  loadPlans(runId);
}

async function refreshRuns() {
  try {
    state.runs = await getJson("/runs");
  } catch {
    document.getElementById("connection").textContent = "viewer unreachable";
    return;
  }
  renderRuns();
  const current = state.runs.find((run) => run.id === state.selected);
  if (current && state.details && state.details.run.id === current.id) {
    const changed = current.status !== state.details.run.status || current.answer !== state.details.run.answer;
    // Paused again, or continuing here: read the pending calls (and any failure) afresh.
    if ((changed && current.status === "awaiting-approval") || state.details.resuming) return reloadDetails(current.id);
    state.details.run = current;
    if (current.status !== "awaiting-approval") state.details.pending = [];
    if (changed) renderDetails();
  }
  if (!state.selected && state.runs.length > 0) {
    const wanted = new URLSearchParams(location.hash.slice(1)).get("run");
    select(state.runs.some((run) => run.id === wanted) ? wanted : state.runs[0].id);
  }
}

// The token came in the address once and now lives in a cookie: keep it out of history and screenshots.
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname + location.hash);
refreshRuns();
setInterval(refreshRuns, 1500);
`;

/** The page's script: the shared functions, then the page's own code. */
export const PAGE_SCRIPT = [
  `const layoutDependencyGraph = ${layoutDependencyGraph.toString()};`,
  `const applyRunEvent = ${applyRunEvent.toString()};`,
  BROWSER_CODE,
].join("\n");
