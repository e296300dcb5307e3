/**
 * Every way `stepwise run` can end, with its exit code: the one table the command, `--help`, the
 * README and the tests read, so scripts and CI can tell an answer from everything else.
 */
export const RUN_ENDINGS = {
  answered: { code: 0, meaning: "the run finished with its answer" },
  failed: { code: 1, meaning: "an error stopped the run (model, store, workspace)" },
  usage: { code: 2, meaning: "a bad argument or setting; nothing ran" },
  "awaiting-approval": { code: 3, meaning: "paused: calls wait for approval (stepwise run --resume, or the viewer)" },
  "max-steps": { code: 4, meaning: "stopped at the step limit, state saved (stepwise run --resume goes on)" },
  "no-answer": { code: 5, meaning: "ended without an answer (planning rounds used up, plan rejected)" },
  aborted: { code: 130, meaning: "stopped by Ctrl-C, state saved (stepwise run --resume goes on)" },
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
