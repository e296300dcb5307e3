import { closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import type { StrategyName } from "../runs/strategies.js";

/** How a trial ended: its check passed, or one of the ways it failed. */
export const TRIAL_OUTCOMES = ["passed", "wrong-answer", "gave-up", "step-limit", "error"] as const;
export type TrialOutcome = (typeof TRIAL_OUTCOMES)[number];

/** One finished trial, one line of results.jsonl. */
export type TrialRecord = {
  /** True when the model was scripted: the record proves the harness and says nothing about any strategy. */
  scripted: boolean;
  model: string;
  strategy: StrategyName;
  task: string;
  /** 1-based. */
  trial: number;
  /** The trial's run in the eval's store (`stepwise ui --store <out>/runs.db` opens it); null when it never started. */
  runId: string | null;
  outcome: TrialOutcome;
  /** The check's line, or why the trial ended without one. */
  reason: string;
  /** Model calls, nested sub-agents' and workflow steps' included. */
  steps: number;
  inputTokens: number;
  /** Of inputTokens, those read from the provider's prompt cache. */
  cachedInputTokens: number;
  outputTokens: number;
  /** Estimated from list prices; null when the model's price is unknown (never a made-up zero). */
  costUsd: number | null;
  wallMs: number;
  finishedAt: string;
};

type TrialKey = Pick<TrialRecord, "task" | "strategy" | "trial">;

export const trialKey = (t: TrialKey): string => `${t.task}\u0000${t.strategy}\u0000${t.trial}`;

/**
 * The finished trials recorded so far. A line cut short by a kill mid-write is dropped (and cut from
 * the file, so the next record starts on a line of its own): that trial simply runs again.
 */
export function readTrialRecords(path: string): TrialRecord[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  const complete = text.lastIndexOf("\n") + 1;
  if (complete < Buffer.byteLength(text)) truncateSync(path, Buffer.byteLength(text.slice(0, complete)));
  return text
    .slice(0, complete)
    .split("\n")
    .filter((line) => line.trim())
    .map((line, index) => {
      try {
        return JSON.parse(line) as TrialRecord;
      } catch {
        throw new Error(`${path} line ${index + 1} is not a trial record; move the file away to start the eval afresh`);
      }
    });
}

/** Appends one record and waits until it is on disk: a kill after this never loses the trial. */
export function appendTrialRecord(path: string, record: TrialRecord): void {
  const fd = openSync(path, "a");
  try {
    writeSync(fd, `${JSON.stringify(record)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
