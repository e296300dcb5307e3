import type { WorkUnit } from "../work-units.js";
import type { ToolCall } from "../../core/messages.js";
import type { TouchedReferences } from "./touched-references.js";

/** How many files, URLs or ids a record lists before it says how many more there are. */
const LISTED_PER_KIND = 15;

/** The reference the model passes to `recall` for a folded unit. */
export function unitRef(unit: WorkUnit): string {
  return `${unit.kind}:${unit.id}`;
}

/**
 * The one message that stands in memory for a finished unit's folded turns: what the unit was, its
 * outcome, what it touched, and how to get the originals back. Written as the agent's own note.
 */
export function foldedUnitRecord(fold: {
  unit: WorkUnit;
  outcome: string;
  calls: readonly ToolCall[];
  references: TouchedReferences;
}): string {
  const ref = unitRef(fold.unit);
  const lines = [
    `<folded-work unit="${ref}">`,
    `Finished ${fold.unit.kind} ${fold.unit.id} "${fold.unit.title}".`,
    `Outcome: ${fold.outcome || "(none given)"}`,
    `Its ${fold.calls.length} tool call(s) (${countByName(fold.calls)}) and their results were folded to save context.`,
    ...listed("Files", fold.references.files),
    ...listed("URLs", fold.references.urls),
    ...listed("IDs", fold.references.ids),
    `To read the original calls and results exactly, call recall with unit "${ref}".`,
    "</folded-work>",
  ];
  return lines.join("\n");
}

/** What replaces a large tool result when a run has no finished units to fold. */
export function stubbedResult(stub: { call: ToolCall; tokens: number; references: TouchedReferences }): string {
  const kept = [...stub.references.files, ...stub.references.urls].slice(0, LISTED_PER_KIND);
  const mentions = kept.length > 0 ? ` It mentioned: ${kept.join(", ")}.` : "";
  return `[Result of ${stub.call.name} folded to save context (about ${stub.tokens} tokens).${mentions} Call recall with unit "${stub.call.id}" to read it in full.]`;
}

function countByName(calls: readonly ToolCall[]): string {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n}` : name)).join(", ");
}

function listed(label: string, items: readonly string[]): string[] {
  if (items.length === 0) return [];
  const more = items.length > LISTED_PER_KIND ? ` … and ${items.length - LISTED_PER_KIND} more` : "";
  return [`${label}: ${items.slice(0, LISTED_PER_KIND).join(", ")}${more}`];
}

/**
 * The one message that stands for older folded units once their records add up: a line per unit
 * with its outcome, so the model still knows what was done and how to recall each one.
 */
export function foldedDigest(folds: readonly { unit: WorkUnit; outcome: string }[]): string {
  // A unit folded in two batches has two folds; it is one line, with its latest outcome.
  const latest = new Map<string, { unit: WorkUnit; outcome: string }>();
  for (const fold of folds) latest.set(unitRef(fold.unit), fold);
  const lines = [...latest].map(([ref, { unit, outcome }]) => `- ${ref} "${unit.title}": ${outcome || "(no outcome given)"}`);
  return [
    `<folded-work units="${latest.size}">`,
    "Earlier finished work, folded to save context. For a unit's original calls and results, call recall with its reference.",
    ...lines,
    "</folded-work>",
  ].join("\n");
}
