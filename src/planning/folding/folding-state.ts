import type { FoldedUnit, StubbedResult } from "./fold-batch.js";
import type { LedgerState } from "./unit-ledger.js";

export const FOLDING_STATE_VERSION = 1;

/** Running totals of one agent's folding. */
export type FoldingStats = {
  /** Batches that rewrote the middle of memory: each one invalidates a provider's prefix cache. */
  prefixBreaks: number;
  unitsFolded: number;
  resultsStubbed: number;
  /** Estimated tokens removed from memory, all batches together. */
  tokensSaved: number;
};

/** The folding plugin's saved state: the unit ledger and the archive of folded originals. */
export type FoldingState = {
  version: number;
  ledger: LedgerState;
  units: FoldedUnit[];
  stubs: StubbedResult[];
  stats: FoldingStats;
};

export function parseFoldingState(state: unknown): FoldingState {
  const s = (typeof state === "object" && state !== null ? state : {}) as Partial<FoldingState>;
  const ledger = s.ledger as Partial<LedgerState> | undefined;
  const valid =
    typeof s.version === "number" &&
    Array.isArray(s.units) &&
    Array.isArray(s.stubs) &&
    typeof s.stats === "object" &&
    s.stats !== null &&
    Array.isArray(ledger?.units) &&
    Array.isArray(ledger?.owners) &&
    typeof ledger?.order === "number";
  if (!valid) {
    throw new Error("contextFolding.loadState expects what contextFolding saved: { version, ledger: { units, owners, order }, units, stubs, stats }.");
  }
  if ((s.version as number) > FOLDING_STATE_VERSION) {
    throw new Error(`This context folding state has version ${String(s.version)}; this Stepwise reads up to ${FOLDING_STATE_VERSION}.`);
  }
  return structuredClone(s as FoldingState);
}
