import { formatDuration } from "../../runs/durations.js";
import type { RunRecord } from "../../stores/run-store.js";
import { el } from "./dom.js";

/** The run list's filter, as `GET /runs` takes it (empty: any). */
export type RunListFilter = { status: string; strategy: string; model: string; q: string };

/**
 * Wires the filter form the page's HTML holds (its status and strategy choices come from the server):
 * `changed` runs after `filter` was updated.
 */
export function wireRunFilter(form: HTMLFormElement, filter: RunListFilter, changed: () => void): void {
  form.addEventListener("submit", (event) => event.preventDefault());
  for (const name of ["status", "strategy", "model", "q"] as const) {
    const field = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement;
    field.addEventListener(field instanceof HTMLInputElement ? "input" : "change", () => {
      filter[name] = field.value;
      changed();
    });
  }
}

/** Offers the models seen so far in the model choice, keeping what is chosen. */
export function offerModels(form: HTMLFormElement, models: readonly string[]): void {
  const select = form.elements.namedItem("model") as HTMLSelectElement;
  const chosen = select.value;
  select.replaceChildren(el("option", { value: "", text: "any model" }), ...models.map((model) => el("option", { value: model, text: model, selected: model === chosen })));
}

/**
 * Who drives the run and how long it has held it ("driven by host:pid:… for 12.3 s"), or whose lease
 * ran out (its driver died or stalled: a worker takes the run over); null when nobody holds it.
 */
export function driverText(run: Pick<RunRecord, "lease">, now: number): string | null {
  const lease = run.lease;
  if (!lease) return null;
  if (Date.parse(lease.expiresAt) <= now) return `${lease.holder}'s lease ran out ${formatDuration(now - Date.parse(lease.expiresAt))} ago: a worker takes the run over`;
  return `driven by ${lease.holder} for ${formatDuration(now - Date.parse(lease.takenAt))}`;
}
