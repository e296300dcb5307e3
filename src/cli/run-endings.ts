/**
 * Every way `stepwise run` can end, with its exit code: the one table the command, `--help`, the
 * README and the tests read, so scripts and CI can tell an answer from everything else. A run's own
 * endings are named as its stopReason and its status are (final, awaiting-user, max-steps, no-answer, aborted).
 */
export const RUN_ENDINGS = {
  final: { code: 0, meaning: "the run finished with its answer" },
  failed: { code: 1, meaning: "an error stopped the run (model, store, workspace)" },
  usage: { code: 2, meaning: "a bad argument or setting; nothing ran" },
  "awaiting-user": { code: 3, meaning: "paused for the user: calls wait for approval, a question for its answer, a plan for review (stepwise run --resume, or the viewer)" },
  "max-steps": { code: 4, meaning: "stopped at the step limit, state saved (stepwise run --resume goes on)" },
  "no-answer": { code: 5, meaning: "ended without an answer (planning rounds used up, plan rejected)" },
  aborted: { code: 130, meaning: "stopped by Ctrl-C, state saved (stepwise run --resume goes on)" },
  "output-closed": { code: 141, meaning: "its output was closed (the reader of a pipe left, as head does); stopped at once, the last checkpoint kept" },
  terminated: { code: 143, meaning: "stopped by SIGTERM, state saved (stepwise run --resume goes on)" },
} as const satisfies Record<string, { code: number; meaning: string }>;

export type RunEnding = keyof typeof RUN_ENDINGS;

export function exitCodeOf(ending: RunEnding): number {
  return RUN_ENDINGS[ending].code;
}

/** The table as `--help` prints it. */
export function exitCodesHelp(): string {
  const rows = Object.values(RUN_ENDINGS).map(({ code, meaning }) => `  ${String(code).padStart(3)}  ${meaning}`);
  return ["Exit codes:", ...rows].join("\n");
}
