import type { Message } from "../../core/messages.js";
import { estimateMessageTokens } from "../../core/tokens.js";
import type { FoldedUnit } from "./fold-batch.js";
import { foldedDigest } from "./folded-record.js";

export interface DigestInput {
  /** How a text is counted (the budget's counter). */
  count(text: string): number;
  /** Every fold so far, in the order they were made, this batch's included. */
  folds: readonly FoldedUnit[];
  /** Records in memory may add up to this many tokens before the older ones are merged. */
  maxRecordTokens: number;
  /** Merge even under that limit (the batch has not saved enough yet). */
  force: boolean;
  /** The newest records that keep their detail (files, URLs) when the others are merged. */
  keepDetailed: number;
}

export type Digest = { memory: Message[]; digested: FoldedUnit[]; tokensSaved: number };

/**
 * Keeps folded records from growing with the length of a run: once the records standing alone in
 * memory pass their share, all but the newest few become lines of one digest message, at the place
 * of the earliest of them (and of the previous digest, which it replaces). Returns undefined when
 * nothing is merged.
 */
export function digestRecords(memory: readonly Message[], input: DigestInput): Digest | undefined {
  const inDigest = input.folds.filter((fold) => fold.digested);
  const previous = inDigest.length > 0 ? foldedDigest(inDigest) : undefined;
  const byRecord = new Map(input.folds.filter((fold) => !fold.digested).map((fold) => [fold.record, fold]));
  const records: { at: number; fold: FoldedUnit }[] = [];
  let digestAt: number | undefined;
  memory.forEach((message, at) => {
    if (message.role !== "assistant" || message.toolCalls?.length) return;
    const fold = byRecord.get(message.content);
    if (fold) records.push({ at, fold });
    else if (message.content === previous) digestAt = at;
  });
  const recordTokens = estimateMessageTokens(records.map(({ at }) => memory[at] as Message), input.count);
  if (records.length <= input.keepDetailed || (!input.force && recordTokens <= input.maxRecordTokens)) return undefined;

  const merged = records.slice(0, records.length - input.keepDetailed);
  const mergedFolds = new Set(merged.map(({ fold }) => fold));
  const digest = foldedDigest(input.folds.filter((fold) => fold.digested || mergedFolds.has(fold)));
  const removed = new Set(merged.map(({ at }) => at));
  if (digestAt !== undefined) removed.add(digestAt);
  const place = Math.min(...removed);
  const result: Message[] = [];
  memory.forEach((message, at) => {
    if (at === place) result.push({ role: "assistant", content: digest });
    if (!removed.has(at)) result.push(structuredClone(message));
  });
  const tokensSaved = estimateMessageTokens(memory, input.count) - estimateMessageTokens(result, input.count);
  return tokensSaved > 0 ? { memory: result, digested: [...mergedFolds], tokensSaved } : undefined;
}
