import type { Message } from "../../core/messages.js";
import type { ToolSpec } from "../../core/model.js";
import type { Plugin, PluginHost } from "../../core/plugin.js";
import { estimateMessageTokens, estimateTokens } from "../../core/tokens.js";
import { foldBatch, type FoldedUnit, type StubbedResult } from "./fold-batch.js";
import "./folding-events.js";
import { FOLDING_STATE_VERSION, parseFoldingState, type FoldingState, type FoldingStats } from "./folding-state.js";
import { recallTool } from "./recall-tool.js";
import { UnitLedger } from "./unit-ledger.js";

export interface ContextFoldingOptions {
  /** Fold when a request's size passes this many tokens. Default: `share` of `contextWindow`. */
  budgetTokens?: number;
  /**
   * How a text is counted against the budget. By default an estimate (about four characters a token),
   * which can fall 10-15% short of a real tokenizer on code, so that a request may end up that far over
   * the budget; give your model's tokenizer (e.g. gpt-tokenizer's `countTokens` for OpenAI models) and
   * no request goes over it.
   */
  countTokens?: (text: string) => number;
  /** The model's context window in tokens (default 128,000). */
  contextWindow?: number;
  /** The share of the context window used as the budget (default 0.5). */
  share?: number;
  /** One batch folds down to this share of the budget, so that folding happens rarely (default 0.5). */
  lowWaterShare?: number;
  /** The latest turns, whose results the fallback for runs without units never stubs (default 2). */
  keepRecentTurns?: number;
  /**
   * The share of the budget that folded records may fill before all but the newest few merge into
   * one digest of a line per unit (default 0.1), so that a long run's records do not fill the budget.
   */
  recordShare?: number;
}

export type ContextFolding = Plugin & {
  readonly budgetTokens: number;
  readonly stats: FoldingStats;
};

const DEFAULT_CONTEXT_WINDOW = 128_000;
const DEFAULT_SHARE = 0.5;
const DEFAULT_LOW_WATER_SHARE = 0.5;
const DEFAULT_KEEP_RECENT_TURNS = 2;
const DEFAULT_RECORD_SHARE = 0.1;
// The newest records keep their detail (files, URLs touched): the model is likeliest to need them.
const KEEP_DETAILED_RECORDS = 3;
// A batch that saves less than this share of the budget would break the prompt cache for little: wait.
const MIN_BATCH_SHARE = 0.1;

/**
 * Plan-aware context folding. Planning plugins announce units of work (`unit-start`,
 * `unit-end`); when a request grows past the budget, the turns of finished units, oldest first,
 * become one compact record each, in one batch down to the low-water mark. The originals stay in the
 * plugin's state and come back exactly through the read-only `recall` tool. The system prompt, the
 * user's messages, live units' work and tail messages (plan recitations, hints) are never folded.
 * Give each agent its own instance, and list it after the planning plugins so it sees their tails.
 */
export function contextFolding(opts: ContextFoldingOptions = {}): ContextFolding {
  const budgetTokens = opts.budgetTokens ?? Math.floor((opts.contextWindow ?? DEFAULT_CONTEXT_WINDOW) * (opts.share ?? DEFAULT_SHARE));
  const lowWaterShare = opts.lowWaterShare ?? DEFAULT_LOW_WATER_SHARE;
  const keepRecentTurns = opts.keepRecentTurns ?? DEFAULT_KEEP_RECENT_TURNS;
  if (!(budgetTokens > 0)) throw new Error(`contextFolding needs a positive token budget, got ${budgetTokens}.`);
  if (!(lowWaterShare > 0 && lowWaterShare < 1)) throw new Error(`lowWaterShare must be between 0 and 1, got ${lowWaterShare}.`);
  const lowWaterTokens = Math.floor(budgetTokens * lowWaterShare);
  const recordShare = opts.recordShare ?? DEFAULT_RECORD_SHARE;
  if (!(recordShare > 0 && recordShare < 1)) throw new Error(`recordShare must be between 0 and 1, got ${recordShare}.`);

  const count = opts.countTokens ?? estimateTokens;
  const measure = (messages: readonly Message[]) => estimateMessageTokens(messages, count);
  const ledger = new UnitLedger();
  let units: FoldedUnit[] = [];
  let stubs: StubbedResult[] = [];
  let stubbedIds = new Set<string>();
  let stats: FoldingStats = { prefixBreaks: 0, unitsFolded: 0, resultsStubbed: 0, tokensSaved: 0 };
  // What a request holds beside memory: the largest system prompt and tail messages seen so far (a
  // hint grows as its plan does, and the decision to fold comes before this request's tail is
  // known), and its tools.
  let overheadTokens = 0;
  let toolTokens = 0;
  let toolsCounted: readonly ToolSpec[] | undefined;
  let host: PluginHost | undefined;
  const recall = recallTool({
    get units() {
      return units;
    },
    get stubs() {
      return stubs;
    },
  });

  return {
    name: "context-folding",
    budgetTokens,
    get stats() {
      return { ...stats };
    },
    tools: () => [recall],
    attach(agentHost) {
      if (host) throw new Error("contextFolding() follows one agent's history; give each agent its own contextFolding().");
      host = agentHost;
      agentHost.on((event) => ledger.observe(event));
    },
    rewriteMemory(ctx): Message[] | void {
      // Counted again only when the tools changed: writing them out for every request cost more than the rest of this hook.
      const tools = ctx.tools ?? [];
      if (!toolsCounted || !sameTools(tools, toolsCounted)) {
        toolsCounted = tools;
        toolTokens = tools.length > 0 ? count(JSON.stringify(tools)) : 0;
      }
      const tokensBefore = measure(ctx.memory) + overheadTokens + toolTokens;
      if (tokensBefore <= budgetTokens) return;
      const batch = foldBatch(ctx.memory, {
        count,
        ownerOf: (turnKey) => ledger.ownerOf(turnKey),
        isStubbed: (callId) => stubbedIds.has(callId),
        excessTokens: tokensBefore - lowWaterTokens,
        keepRecentTurns,
        archive: units,
        maxRecordTokens: budgetTokens * recordShare,
        keepDetailedRecords: KEEP_DETAILED_RECORDS,
      });
      if (!batch || batch.tokensSaved < budgetTokens * MIN_BATCH_SHARE) return;
      units = [...units, ...batch.units];
      for (const fold of batch.digested) fold.digested = true;
      stubs = [...stubs, ...batch.stubs];
      for (const stub of batch.stubs) stubbedIds.add(stub.original.toolCallId);
      ledger.forget(batch.foldedTurnKeys);
      stats = {
        prefixBreaks: stats.prefixBreaks + 1,
        unitsFolded: stats.unitsFolded + batch.units.length,
        resultsStubbed: stats.resultsStubbed + batch.stubs.length,
        tokensSaved: stats.tokensSaved + batch.tokensSaved,
      };
      host?.emit({
        type: "context-folded",
        units: batch.units.map((fold) => ({
          unit: { ...fold.unit },
          outcome: fold.outcome,
          messages: fold.messages.length,
          tokensSaved: fold.tokensSaved,
        })),
        stubbed: batch.stubs.map((stub) => ({
          callId: stub.original.toolCallId,
          name: stub.original.name,
          tokensSaved: stub.tokensSaved,
        })),
        digested: batch.digested.map((fold) => ({ ...fold.unit })),
        tokensBefore,
        tokensAfter: measure(batch.memory) + overheadTokens + toolTokens,
        tokensSaved: batch.tokensSaved,
        prefixBreaks: stats.prefixBreaks,
      });
      return batch.memory;
    },
    beforeModel(ctx): void {
      overheadTokens = Math.max(overheadTokens, measure(ctx.messages) - measure(ctx.memory));
    },
    // Not copied here: the agent copies every plugin's saved state (savePluginStates), twice a step in a durable run.
    saveState: (): FoldingState => ({
      version: FOLDING_STATE_VERSION,
      ledger: ledger.toJSON(),
      units,
      stubs,
      stats: { ...stats },
    }),
    loadState(state) {
      const saved = parseFoldingState(state);
      ledger.load(saved.ledger);
      units = saved.units;
      stubs = saved.stubs;
      stubbedIds = new Set(stubs.map((stub) => stub.original.toolCallId));
      stats = saved.stats;
    },
  };
}

/** Whether two requests offer the same tools: a tool's schema and description are the same objects from request to request. */
function sameTools(a: readonly ToolSpec[], b: readonly ToolSpec[]): boolean {
  return a.length === b.length && a.every((spec, i) => spec.name === b[i]?.name && spec.description === b[i]?.description && spec.parameters === b[i]?.parameters);
}
