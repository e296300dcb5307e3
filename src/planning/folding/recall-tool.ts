import { z } from "zod";
import { boundedQuote } from "../../core/bounded-quote.js";
import type { Message } from "../../core/messages.js";
import { defineTool, ToolError, type Tool } from "../../core/tool.js";
import type { FoldedUnit, StubbedResult } from "./fold-batch.js";
import { unitRef } from "./folded-record.js";
import { RECALL_DESCRIPTION } from "./recall-description.js";

/** Where recall finds the originals: the folding plugin's archive. */
export interface FoldArchive {
  readonly units: readonly FoldedUnit[];
  readonly stubs: readonly StubbedResult[];
}

const MAX_LISTED = 20;

const RECALL = "recall";

// One schema for every recall tool made (one per folding agent): its JSON Schema is converted once.
const PARAMETERS = z.object({
  unit: z.string().min(1).describe('A folded unit\'s reference, like "subtask:2", or the id shown in a folded result'),
  match: z.string().min(1).optional().describe("Only the calls and results that mention this: a file, URL or id the note lists"),
});

/**
 * The read-only `recall(unit, match?)` tool. A unit reference returns the folded messages as JSON
 * (every fold of that unit, in order; with `match`, only the calls and results that mention it); a
 * stub's id returns the tool result's original text, verbatim. Inside a unit, the result of an
 * earlier recall comes back as a pointer to what it recalled, not again in full: otherwise a unit
 * that recalled another would carry that one's work, and a chain of recalls would nest every unit
 * before it.
 */
export function recallTool(archive: FoldArchive): Tool {
  return defineTool({
    name: RECALL,
    description: RECALL_DESCRIPTION,
    parameters: PARAMETERS,
    readOnly: true,
    execute: ({ unit, match }) => {
      const stub = archive.stubs.find((s) => s.original.toolCallId === unit);
      if (stub) return stub.original.content;
      const folds = foldsOf(archive, unit);
      if (folds.length === 0) throw new ToolError(unknownReference(archive, unit));
      const first = folds[0] as FoldedUnit;
      const messages = withRecallPointers(folds.flatMap((fold) => fold.messages));
      const shown = match === undefined ? messages : mentioning(messages, match);
      if (shown.length === 0) {
        throw new ToolError(
          `Nothing in ${unitRef(first.unit)} mentions ${boundedQuote(match ?? "", 80)}; pass a file, URL or id its note lists, or recall it without \`match\` to read all of it.`,
        );
      }
      return JSON.stringify({ unit: first.unit, outcome: (folds.at(-1) as FoldedUnit).outcome, ...(match === undefined ? {} : { match }), messages: shown });
    },
  });
}

/** The messages with each recall result replaced by a pointer naming what that call recalled. */
export function withRecallPointers(messages: readonly Message[]): Message[] {
  const asked = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.toolCalls ?? []) if (call.name === RECALL) asked.set(call.id, recalledUnit(call.arguments));
  }
  return messages.map((message) =>
    message.role === "tool" && message.name === RECALL ? { ...message, content: recallPointer(asked.get(message.toolCallId) ?? "") } : message,
  );
}

/**
 * The calls that mention `match` (in their arguments or their result) with their results, and text
 * replies that mention it; each assistant turn keeps only those of its calls.
 */
function mentioning(messages: readonly Message[], match: string): Message[] {
  const results = new Map(messages.flatMap((m) => (m.role === "tool" ? [[m.toolCallId, m] as const] : [])));
  const shown: Message[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    const calls = (message.toolCalls ?? []).filter((call) => call.arguments.includes(match) || results.get(call.id)?.content.includes(match));
    if (calls.length > 0) shown.push({ ...message, toolCalls: calls }, ...calls.flatMap((call) => results.get(call.id) ?? []));
    else if (!message.toolCalls?.length && message.content.includes(match)) shown.push(message);
  }
  return shown;
}

/** What stands for an earlier recall result inside recalled work. */
export function recallPointer(unit: string): string {
  return `[This recalled ${JSON.stringify(unit)}; call recall with that unit to read it again.]`;
}

function recalledUnit(args: string): string {
  try {
    const unit = (JSON.parse(args) as { unit?: unknown }).unit;
    return typeof unit === "string" ? unit.slice(0, 200) : "";
  } catch {
    return "";
  }
}

/** A full reference, or a bare unit id when exactly one folded unit has it (models often drop the kind). */
function foldsOf(archive: FoldArchive, reference: string): FoldedUnit[] {
  const exact = archive.units.filter((fold) => unitRef(fold.unit) === reference);
  if (exact.length > 0) return exact;
  const byId = archive.units.filter((fold) => fold.unit.id === reference);
  return new Set(byId.map((fold) => unitRef(fold.unit))).size === 1 ? byId : [];
}

function unknownReference(archive: FoldArchive, reference: string): string {
  const known = [...new Set([...archive.units.map((f) => unitRef(f.unit)), ...archive.stubs.map((s) => s.original.toolCallId)])];
  if (known.length === 0) return `Nothing has been folded yet, so there is nothing to recall for "${reference}"; your full history is in front of you.`;
  const listed = known.slice(-MAX_LISTED).join(", ");
  return `No folded work is called "${reference}". Pass a reference from a <folded-work> note or a folded result's id; recent ones: ${listed}.`;
}
