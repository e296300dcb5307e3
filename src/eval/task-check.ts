import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { boundedText } from "../core/bounded-quote.js";
import type { EvalTask } from "./eval-task.js";

export type CheckResult = { passed: boolean; reason: string };

/**
 * Runs the task's check.mjs in a child process, outside the agent's reach: `node check.mjs
 * <workspace> <answer-file>`, in the task's folder. Exit code 0 passes; anything else (a failed
 * assertion, a crash, the timeout) fails. The reason is the check's last line of output, bounded.
 */
export async function runCheck(task: EvalTask, workspace: string, answer: string): Promise<CheckResult> {
  const scratch = await mkdtemp(join(tmpdir(), "stepwise-check-"));
  try {
    const answerFile = join(scratch, "answer.md");
    await writeFile(answerFile, answer);
    return await new Promise<CheckResult>((resolve) => {
      execFile(
        process.execPath,
        [task.checkPath, workspace, answerFile],
        { cwd: task.dir, timeout: task.checkTimeoutMs, maxBuffer: 1024 * 1024, encoding: "utf8" },
        (error, stdout, stderr) => {
          const said = lastLine(stdout) ?? firstLine(stderr);
          if (!error) return resolve({ passed: true, reason: said ?? "passed" });
          const timedOut = error.killed === true || error.signal === "SIGTERM";
          const why = timedOut ? `the check took over ${task.checkTimeoutMs} ms` : (said ?? `the check exited with ${String(error.code)}`);
          resolve({ passed: false, reason: why });
        },
      );
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function lastLine(text: string): string | undefined {
  const line = text.split("\n").map((l) => l.trim()).filter(Boolean).at(-1);
  return line === undefined ? undefined : boundedText(line);
}

// An uncaught error prints its message on stderr's first line ("Error: …" or the file's location).
function firstLine(text: string): string | undefined {
  const lines = text.split("\n").map((l) => l.trim()).filter(Boolean);
  const message = lines.find((l) => /^\w*Error\b|^AssertionError/.test(l)) ?? lines[0];
  return message === undefined ? undefined : boundedText(message);
}
