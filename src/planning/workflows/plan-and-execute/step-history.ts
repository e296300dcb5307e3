import { estimateTokens } from "../../../core/tokens.js";

export type CompletedStep = { id: string; step: string; result: string };

/** Writes a new summary from the previous one and the steps being folded into it. */
export type HistorySummarizer = (previousSummary: string, steps: readonly CompletedStep[]) => Promise<string>;

export type FoldReport = { foldedSteps: number; summaryTokens: number };

/** What a checkpoint keeps of the history. */
export type StepHistoryState = { summary: string; recent: CompletedStep[] };

/**
 * The "steps done so far" every executor prompt carries. Sent in full it grows with each step, so
 * a plan of n steps costs tokens in n²; past the budget the oldest steps are folded into a summary.
 * The summary gets half the budget and the recent steps the other half, so the rendered history
 * stays near the budget however many steps run, even if the summarizer ignores its word limit.
 */
export class StepHistory {
  readonly #budget: number;
  readonly #summarize: HistorySummarizer;
  #summary = "";
  #recent: CompletedStep[] = [];

  constructor(budgetTokens: number, summarize: HistorySummarizer, saved?: StepHistoryState) {
    this.#budget = budgetTokens;
    this.#summarize = summarize;
    if (saved) {
      this.#summary = saved.summary;
      this.#recent = structuredClone(saved.recent);
    }
  }

  get summary(): string {
    return this.#summary;
  }

  get state(): StepHistoryState {
    return { summary: this.#summary, recent: structuredClone(this.#recent) };
  }

  async add(step: CompletedStep): Promise<FoldReport | undefined> {
    this.#recent.push(step);
    if (estimateTokens(this.render()) <= this.#budget) return undefined;
    const half = Math.floor(this.#budget / 2);
    const folded: CompletedStep[] = [];
    while (this.#recent.length > 0 && estimateTokens(renderSteps(this.#recent)) > half) {
      folded.push(this.#recent.shift() as CompletedStep);
    }
    if (folded.length === 0) return undefined;
    this.#summary = clip(await this.#summarize(this.#summary, folded), half);
    return { foldedSteps: folded.length, summaryTokens: estimateTokens(this.#summary) };
  }

  render(): string {
    const parts: string[] = [];
    if (this.#summary) parts.push(`Summary of earlier steps: ${this.#summary}`);
    if (this.#recent.length > 0) parts.push(renderSteps(this.#recent));
    return parts.length > 0 ? parts.join("\n") : "(no steps done yet)";
  }
}

export function renderSteps(steps: readonly CompletedStep[]): string {
  return steps.map((s) => `Step ${s.id}: ${s.step}\nResult: ${s.result}`).join("\n");
}

function clip(text: string, tokens: number): string {
  const trimmed = text.trim();
  if (estimateTokens(trimmed) <= tokens) return trimmed;
  return `${trimmed.slice(0, Math.max(0, tokens * 4 - 1))}…`;
}
