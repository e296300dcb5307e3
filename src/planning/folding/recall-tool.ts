import { z } from "zod";
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

/**
 * The read-only `recall(unit)` tool. A unit reference returns the folded messages as JSON (every fold
 * of that unit, in order); a stub's id returns the tool result's original text, verbatim.
 */
export function recallTool(archive: FoldArchive): Tool {
  return defineTool({
    name: "recall",
    description: RECALL_DESCRIPTION,
    parameters: z.object({
      unit: z.string().min(1).describe('A folded unit\'s reference, like "subtask:2", or the id shown in a folded result'),
    }),
    readOnly: true,
    execute: ({ unit }) => {
      const stub = archive.stubs.find((s) => s.original.toolCallId === unit);
      if (stub) return stub.original.content;
      const folds = foldsOf(archive, unit);
      if (folds.length === 0) throw new ToolError(unknownReference(archive, unit));
      const first = folds[0] as FoldedUnit;
      return JSON.stringify({
        unit: first.unit,
        outcome: (folds.at(-1) as FoldedUnit).outcome,
        messages: folds.flatMap((fold) => fold.messages),
      });
    },
  });
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
