import { card, el, formatTokens } from "./dom.js";
import type { PlanningFailure, RunDetails } from "./run-view.js";

/** What the page reads of a plan as `GET /runs/:id/plans` sends it. */
export type PlanJson = { name: string; description: string; state: string; outcome: string | null; subtasks: { name: string; state: string }[] };

const time = (ms: number) => new Date(ms).toLocaleTimeString();

/** How the plan changed over the run: what, when, and after which tool call. */
export function revisionsSection(details: RunDetails): HTMLElement | null {
  if (details.revisions.length === 0) return null;
  return card(
    "revisions",
    ["Plan revisions ", el("span", { class: "meta", text: details.revisions.length + " change(s), newest first" })],
    el(
      "ol",
      { class: "revisions", reversed: true },
      details.revisions
        .slice()
        .reverse()
        .map((revision) =>
          el(
            "li",
            { "data-seq": revision.seq },
            el("span", { class: "meta", text: time(revision.time) + " · " + revision.agent + (revision.cause ? " · after " + revision.cause : "") }),
            el("ul", {}, revision.changes.map((change) => el("li", { text: change }))),
          ),
        ),
    ),
  );
}

const FALLBACKS: Record<PlanningFailure["instead"], string> = {
  "task-as-one-step": "the whole task ran as one step",
  "answer-without-steps": "the answer was written without running any step",
  "keep-remaining-steps": "the run went on with the steps it had",
};

/** Where the run went on without the plan it asked for: its answer may look fine and still be a guess. */
export function planningFailuresSection(details: RunDetails): HTMLElement | null {
  if (details.planningFailures.length === 0) return null;
  return card(
    "planning-failed",
    "The planner gave no usable plan",
    el(
      "ul",
      {},
      details.planningFailures.map((failure) =>
        el("li", { text: `${time(failure.time)} · ${failure.workflow}, round ${failure.round}: ${FALLBACKS[failure.instead]}. ${failure.errors.at(-1) ?? ""}` }),
      ),
    ),
  );
}

export function foldSection(details: RunDetails): HTMLElement | null {
  if (details.folds.length === 0) return null;
  return card(
    "folds",
    "Context folded",
    el(
      "ul",
      {},
      details.folds.map((fold) =>
        el("li", {
          text:
            `${time(fold.time)}: ${fold.units.length} unit(s) folded` +
            (fold.stubbed.length ? `, ${fold.stubbed.length} result(s) stubbed` : "") +
            `, about ${formatTokens(fold.tokensSaved)} tokens saved (${formatTokens(fold.tokensBefore)} → ${formatTokens(fold.tokensAfter)})`,
        }),
      ),
    ),
  );
}

export function plansSection(plans: readonly PlanJson[]): HTMLElement | null {
  if (plans.length === 0) return null;
  return card(
    "past-plans",
    "Plans in the notebook",
    plans.map((plan) =>
      el(
        "details",
        { class: "plan" },
        el("summary", {}, plan.name + " ", el("span", { class: "meta", text: `(${plan.state}, ${plan.subtasks.length} subtasks)` })),
        el("p", { text: plan.description }),
        plan.outcome ? el("p", { class: "meta", text: "Outcome: " + plan.outcome }) : null,
        el("ul", {}, plan.subtasks.map((subtask) => el("li", { text: subtask.name + " — " + subtask.state }))),
      ),
    ),
  );
}
