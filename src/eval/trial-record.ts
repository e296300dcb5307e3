import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import type { StrategyName } from "../runs/strategies.js";

/** How a trial ended: its check passed, or one of the ways it failed ("max-steps": the run's own word for its step limit). */
export const TRIAL_OUTCOMES = ["passed", "wrong-answer", "gave-up", "max-steps", "error"] as const;

/** Outcomes results.jsonl files of earlier versions hold under other names: read as the outcome they mean. */
const EARLIER_OUTCOME_NAMES: Readonly<Record<string, TrialOutcome>> = { "step-limit": "max-steps" };
export type TrialOutcome = (typeof TRIAL_OUTCOMES)[number];

/**
 * A trial the machine failed, not the model (the disk full, the store unwritable): recorded so it is
 * seen, never counted, and run again by the next invocation.
 */
export const MACHINE_FAILURE = "machine-failure";

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
  outcome: TrialOutcome | typeof MACHINE_FAILURE;
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

/** Whether a record counts: a trial the machine failed is run again instead. */
export const isCounted = (record: TrialRecord): boolean => record.outcome !== MACHINE_FAILURE;

/**
 * The finished trials recorded so far. A last line cut short (a kill mid-write, a full disk) is
 * dropped and cut from the file, so the next record starts on a line of its own, and `onRepair` is
 * told: that trial simply runs again.
 */
export function readTrialRecords(path: string, onRepair?: (notice: string) => void): TrialRecord[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  const complete = text.lastIndexOf("\n") + 1;
  const size = Buffer.byteLength(text);
  const kept = Buffer.byteLength(text.slice(0, complete));
  if (kept < size) {
    truncateSync(path, kept);
    onRepair?.(`${path} ended in a cut-off line (${size - kept} bytes of a trial being written when the eval stopped); it was dropped, and that trial runs again`);
  }
  return text
    .slice(0, complete)
    .split("\n")
    .filter((line) => line.trim())
    .map((line, index) => {
      try {
        const record = JSON.parse(line) as TrialRecord;
        const renamed = EARLIER_OUTCOME_NAMES[record.outcome];
        return renamed ? { ...record, outcome: renamed } : record;
      } catch {
        throw new Error(`${path} line ${index + 1} is not a trial record; move the file away to start the eval afresh`);
      }
    });
}

/**
 * Appends one record and waits until it is on disk: a kill after this never loses the trial. A write
 * that fails part way (the disk full) is cut back off, so the file never keeps half a record.
 */
export function appendTrialRecord(path: string, record: TrialRecord): void {
  const fd = openSync(path, "a");
  const before = fstatSync(fd).size;
  try {
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    for (let written = 0; written < line.length; ) written += writeSync(fd, line, written);
    fsyncSync(fd);
  } catch (error) {
    try {
      ftruncateSync(fd, before);
    } catch {
      // The next read drops the cut-off line instead.
    }
    throw error;
  } finally {
    closeSync(fd);
  }
}
