import type { ApprovalDecision, PendingCall } from "../../core/approval.js";
import { el, prettyJson } from "./dom.js";
import type { RunDetails } from "./run-view.js";

/** What the approval card needs from the page: its decisions so far, a problem to show, and how to go on. */
export type ApprovalState = {
  decisions: Record<string, ApprovalDecision>;
  problem: string;
  /** Redraws the card (forced: rebuilt even when nothing pending changed). */
  redraw(force: boolean): void;
  /** Every pending call has a decision and the user confirmed them: send them. */
  send(): void;
};

/**
 * How long the confirmation stays disabled once shown (ms): a click already on its way (the second of a
 * double-click, a click aimed blind at where it might appear) finds it disabled.
 */
const CONFIRM_ARMING_MS = 600;

/** Details as the page holds them: what the server adds about resuming. */
export type ShownDetails = RunDetails & { resuming?: boolean; resumeError?: string };

export function pendingSection(details: ShownDetails, state: ApprovalState): HTMLElement | null {
  if (details.run.status !== "awaiting-user" || details.pending.length === 0) return null;
  if (details.resuming) return el("div", { class: "card pending", id: "pending-sent" }, el("p", { text: "Decision sent; continuing the run…" }));
  const card = el("div", { class: "card pending", id: "pending" }, el("h2", { text: "Waiting for your decision" }));
  for (const call of details.pending) card.append(pendingCall(call, state));
  const problem = state.problem || (details.resumeError ? "The last attempt to continue failed: " + details.resumeError : "");
  if (problem) card.append(el("p", { class: "problem", role: "alert", text: problem }));
  if (details.pending.every((call) => state.decisions[call.id])) card.append(confirmation(details.pending, state));
  return card;
}

/**
 * Nothing is sent on the first click: once every call has a decision, this asks to confirm them, below
 * the calls (where depends on their arguments, which a page framing the viewer cannot see) and armed a
 * moment after it appears.
 */
function confirmation(pending: readonly PendingCall[], state: ApprovalState): HTMLElement {
  const summary = pending.map((call) => `${(state.decisions[call.id] as ApprovalDecision).action} ${call.name}`).join(", ");
  const send = el("button", { type: "button", class: "action approve", disabled: true, onclick: () => state.send() }, "Send decision" + (pending.length > 1 ? "s" : ""));
  setTimeout(() => (send.disabled = false), CONFIRM_ARMING_MS);
  const change = el("button", {
    type: "button",
    class: "action",
    onclick: () => {
      state.decisions = {};
      state.redraw(true);
    },
  }, "Change");
  return el("div", { class: "confirm", id: "confirm-decisions" }, el("p", {}, el("strong", { text: "Confirm: " }), summary + "; the run goes on at once."), el("div", { class: "actions" }, send, change));
}

function pendingCall(call: PendingCall, state: ApprovalState): HTMLElement {
  const decide = (decision: ApprovalDecision) => {
    state.decisions[call.id] = decision;
    state.problem = "";
    state.redraw(true);
  };
  const chosen = state.decisions[call.id];
  const box = el("div", { "data-call": call.id });
  if (call.kind === "question") {
    let question = call.arguments;
    let asker: string | undefined;
    try {
      const parsed = JSON.parse(call.arguments) as { question?: unknown; asker?: unknown };
      if (typeof parsed.question === "string") question = parsed.question;
      if (typeof parsed.asker === "string") asker = parsed.asker;
    } catch {
      // Not JSON: show the arguments as they are.
    }
    const answer = el("input", { type: "text", "aria-label": "your answer", placeholder: "Your answer" });
    const answerButton = el("button", { type: "button", class: "action approve", onclick: () => decide({ action: "answer", text: answer.value }) }, "Answer");
    if (asker === undefined) {
      box.append(el("p", {}, el("strong", { text: "The agent asks: " }), question), el("div", { class: "actions" }, answer, answerButton));
    } else {
      // A tool's question from inside its call (an MCP server's form): its text says who asks; declining is an answer too.
      const decline = el("button", { type: "button", class: "action reject", onclick: () => decide({ action: "reject", reason: "the user declined to answer" }) }, "Decline");
      box.append(el("p", { class: "answer" }, question), el("div", { class: "actions" }, answer, answerButton, decline));
    }
  } else {
    const reason = el("input", { type: "text", "aria-label": "reason for rejecting", placeholder: "Why not? (told to the agent)" });
    const editor = el("textarea", { "aria-label": "edited arguments (JSON)", hidden: true, spellcheck: "false" });
    editor.value = prettyJson(call.arguments);
    const saveEdit = el(
      "button",
      {
        type: "button",
        class: "action",
        hidden: true,
        onclick: () => {
          let args: unknown;
          try {
            args = JSON.parse(editor.value);
          } catch (error) {
            state.problem = "The edited arguments are not valid JSON: " + (error as Error).message;
            return state.redraw(true);
          }
          if (typeof args !== "object" || args === null || Array.isArray(args)) {
            state.problem = "The arguments must be a JSON object.";
            return state.redraw(true);
          }
          decide({ action: "edit", arguments: args as Record<string, unknown> });
        },
      },
      "Run with these arguments",
    );
    box.append(
      el("p", {}, "The agent wants to call ", el("code", { text: call.name }), " with:"),
      el("pre", { text: prettyJson(call.arguments) }),
      el(
        "div",
        { class: "actions" },
        el("button", { type: "button", class: "action approve", onclick: () => decide({ action: "approve" }) }, "Approve"),
        el("button", { type: "button", class: "action reject", onclick: () => decide({ action: "reject", reason: reason.value }) }, "Reject"),
        reason,
        el("button", { type: "button", class: "action", onclick: () => ((editor.hidden = !editor.hidden), (saveEdit.hidden = editor.hidden)) }, "Edit"),
      ),
      editor,
      saveEdit,
    );
  }
  if (chosen) box.append(el("p", { class: "meta", text: "Decided: " + chosen.action }));
  return box;
}
