import type { WorkUnit } from "../work-units.js";

/** One batch of folding, as the CLI and the viewer show it. */
export type ContextFoldedEvent = {
  units: { unit: WorkUnit; outcome: string; messages: number; tokensSaved: number }[];
  /** Tool results of a run without (enough) finished units, replaced by stubs; recallable by callId. */
  stubbed: { callId: string; name: string; tokensSaved: number }[];
  /** Units whose records this batch merged into the digest of older folds (one line each). */
  digested: WorkUnit[];
  /** Estimated request size before and after the batch. */
  tokensBefore: number;
  tokensAfter: number;
  tokensSaved: number;
  /** How many times folding has rewritten the middle of memory (and so broken a prefix cache), this batch included. */
  prefixBreaks: number;
};

declare module "../../core/events.js" {
  interface AgentEventMap {
    "context-folded": ContextFoldedEvent;
  }
}
