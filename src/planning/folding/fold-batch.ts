import type { WorkUnit } from "../work-units.js";
import { cloneMessages, type Message, type ToolMessage } from "../../core/messages.js";
import { estimateMessageTokens } from "../../core/tokens.js";
import { foldedUnitRecord, stubbedResult } from "./folded-record.js";
import { digestRecords } from "./record-digest.js";
import { findToolTurns, type ToolTurn } from "./tool-turns.js";
import { collectReferences } from "./touched-references.js";
import type { LedgerUnit } from "./unit-ledger.js";

/**
 * A finished unit's turns, folded into one record; `messages` are the originals, exactly. `digested`:
 * the record has since become a line of the digest of older folds.
 */
export type FoldedUnit = { unit: WorkUnit; outcome: string; messages: Message[]; record: string; tokensSaved: number; digested?: boolean };

/** A tool result replaced by a short stub; `original` is the tool message as it was. */
export type StubbedResult = { original: ToolMessage; tokensSaved: number };

export type FoldBatch = {
  memory: Message[];
  units: FoldedUnit[];
  stubs: StubbedResult[];
  /** Folds (earlier ones or this batch's) whose records this batch merged into the digest. */
  digested: FoldedUnit[];
  tokensSaved: number;
  foldedTurnKeys: string[];
};

export interface FoldBatchInput {
  /** How a text is counted (the budget's counter). */
  count(text: string): number;
  ownerOf(turnKey: string): LedgerUnit | undefined;
  isStubbed(callId: string): boolean;
  /** Tokens to remove to get down to the low-water mark. */
  excessTokens: number;
  /** The fallback never stubs results of the latest turns: the model is still reading them. */
  keepRecentTurns: number;
  /** The folds of earlier batches, oldest first. */
  archive: readonly FoldedUnit[];
  /** Folded records may add up to this many tokens before older ones join the digest. */
  maxRecordTokens: number;
  /** The newest records that keep their detail when older ones join the digest. */
  keepDetailedRecords: number;
}

/**
 * Chooses one batch of folds and applies it: finished units, oldest finished first, until enough is
 * saved; then, if that was not enough (or the run has no units), the oldest large tool results
 * outside any live unit become stubs. Only whole turns are removed, so user messages, text replies
 * and live units' work stay as they are. Last, when the records themselves have grown past their
 * share (or the batch is still short), older records merge into one digest. Returns undefined when
 * there is nothing to fold.
 */
export function foldBatch(memory: readonly Message[], input: FoldBatchInput): FoldBatch | undefined {
  const turns = findToolTurns(memory);
  const units: { folded: FoldedUnit; turns: ToolTurn[] }[] = [];
  let saved = 0;
  for (const { owner, turns: owned } of finishedUnitsOldestFirst(turns, input)) {
    if (saved >= input.excessTokens) break;
    const messages = cloneMessages(owned.flatMap((turn) => memory.slice(turn.start, turn.end)));
    const calls = owned.flatMap((turn) => turn.calls);
    const record = foldedUnitRecord({ unit: owner.unit, outcome: owner.outcome, calls, references: collectReferences(messages) });
    const tokensSaved = estimateMessageTokens(messages, input.count) - estimateMessageTokens([{ role: "assistant", content: record }], input.count);
    if (tokensSaved <= 0) continue;
    units.push({ folded: { unit: { ...owner.unit }, outcome: owner.outcome, messages, record, tokensSaved }, turns: owned });
    saved += tokensSaved;
  }

  const stubs = new Map<number, { stub: StubbedResult; text: string }>();
  const foldedTurns = new Set(units.flatMap((u) => u.turns));
  const stubbable = turns.slice(0, Math.max(0, turns.length - input.keepRecentTurns));
  for (const turn of stubbable) {
    if (saved >= input.excessTokens) break;
    if (foldedTurns.has(turn) || input.ownerOf(turn.key)?.live) continue;
    for (let at = turn.start + 1; at < turn.end && saved < input.excessTokens; at++) {
      const message = memory[at] as ToolMessage;
      const call = turn.calls.find((c) => c.id === message.toolCallId);
      if (!call || input.isStubbed(call.id)) continue;
      const tokens = input.count(message.content);
      const text = stubbedResult({ call, tokens, references: collectReferences([message]) });
      const tokensSaved = tokens - input.count(text);
      // A stub that saves less than half the result is not worth breaking the prompt cache for.
      if (tokensSaved * 2 < tokens) continue;
      stubs.set(at, { stub: { original: { ...message }, tokensSaved }, text });
      saved += tokensSaved;
    }
  }

  const folded = units.map((u) => u.folded);
  let next = rewrite(memory, units, stubs);
  const digest = digestRecords(next, {
    count: input.count,
    folds: [...input.archive, ...folded],
    maxRecordTokens: input.maxRecordTokens,
    force: saved < input.excessTokens,
    keepDetailed: input.keepDetailedRecords,
  });
  if (digest) {
    next = digest.memory;
    saved += digest.tokensSaved;
  }

  if (units.length === 0 && stubs.size === 0 && !digest) return undefined;
  return {
    memory: next,
    units: folded,
    stubs: [...stubs.values()].map((s) => s.stub),
    digested: digest?.digested ?? [],
    tokensSaved: saved,
    foldedTurnKeys: [...foldedTurns].map((turn) => turn.key),
  };
}

function finishedUnitsOldestFirst(turns: readonly ToolTurn[], input: FoldBatchInput): { owner: LedgerUnit; turns: ToolTurn[] }[] {
  const groups = new Map<LedgerUnit, ToolTurn[]>();
  for (const turn of turns) {
    const owner = input.ownerOf(turn.key);
    if (!owner || owner.live) continue;
    groups.set(owner, [...(groups.get(owner) ?? []), turn]);
  }
  return [...groups].map(([owner, owned]) => ({ owner, turns: owned })).sort((a, b) => a.owner.order - b.owner.order);
}

/** The new memory: each folded unit's record where its first turn stood, its turns gone, stubs in place. */
function rewrite(
  memory: readonly Message[],
  units: readonly { folded: FoldedUnit; turns: ToolTurn[] }[],
  stubs: ReadonlyMap<number, { text: string }>,
): Message[] {
  const recordAt = new Map<number, string>();
  const removed = new Set<number>();
  for (const { folded, turns } of units) {
    recordAt.set(Math.min(...turns.map((turn) => turn.start)), folded.record);
    for (const turn of turns) for (let at = turn.start; at < turn.end; at++) removed.add(at);
  }
  const result: Message[] = [];
  memory.forEach((message, at) => {
    const record = recordAt.get(at);
    if (record !== undefined) result.push({ role: "assistant", content: record });
    if (removed.has(at)) return;
    const stub = stubs.get(at);
    result.push(stub && message.role === "tool" ? { ...message, content: stub.text } : structuredClone(message));
  });
  return result;
}
