import { card, el, formatTokens } from "./dom.js";
import type { RunDetails } from "./run-view.js";

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
