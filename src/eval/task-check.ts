import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, relative } from "node:path";
import { boundedText } from "../core/bounded-quote.js";
import type { EvalTask } from "./eval-task.js";

export type CheckResult = { passed: boolean; reason: string };

// Node's permission model: `--permission` from Node 22.13 and 23.5, `--experimental-permission` before.
const PERMISSION_FLAG = process.allowedNodeEnvironmentFlags.has("--permission") ? "--permission" : "--experimental-permission";

/**
 * Runs the task's check.mjs in a child process, outside the agent's reach: `node check.mjs
 * <workspace> <answer-file>`, on a copy of the task's folder (and the suite's shared folders) in a
 * scratch folder, in that copy. A code task's check imports the agent's code, and that code runs with
 * the check, so the process may write only to its scratch folder and the trial's workspace and may not
 * start processes or workers (Node's permission model): the suite, the eval's files and other trials
 * stay as they were, whatever the code does. Its environment holds only PATH (no API key). Exit code 0
 * passes; anything else (a failed assertion, a crash, the timeout) fails. The reason is the check's
 * last line of output, bounded.
 */
export async function runCheck(task: EvalTask, workspace: string, answer: string): Promise<CheckResult> {
  // Real paths: the permission model compares the paths a process opens with these, links resolved (macOS's /tmp is one).
  const scratch = await realpath(await mkdtemp(join(tmpdir(), "stepwise-check-")));
  try {
    const taskCopy = await copyTask(task, join(scratch, "suite"));
    const answerFile = join(scratch, "answer.md");
    await writeFile(answerFile, answer);
    const temporary = join(scratch, "tmp");
    await mkdir(temporary);
    const sandbox = [PERMISSION_FLAG, "--allow-fs-read=*", `--allow-fs-write=${scratch}`, `--allow-fs-write=${await realpath(workspace)}`, "--disable-warning=ExperimentalWarning"];
    const env = { PATH: process.env["PATH"] ?? "", TMPDIR: temporary, TEMP: temporary, TMP: temporary };
    return await new Promise<CheckResult>((resolve) => {
      execFile(
        process.execPath,
        [...sandbox, join(taskCopy, relative(task.dir, task.checkPath)), workspace, answerFile],
        { cwd: taskCopy, env, timeout: task.checkTimeoutMs, maxBuffer: 1024 * 1024, encoding: "utf8" },
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

/**
 * Copies the task's folder into `suite`, with the suite's folders and files that are not tasks (the
 * helpers checks share), as they sit in the suite, so a check's relative imports work unchanged.
 * Links are copied as what they point to: nothing in the copy leads back to the originals.
 */
async function copyTask(task: EvalTask, suite: string): Promise<string> {
  const copy = join(suite, basename(task.dir));
  await cp(task.dir, copy, { recursive: true, dereference: true });
  if (task.suiteDir) {
    for (const entry of await readdir(task.suiteDir, { withFileTypes: true })) {
      const path = join(task.suiteDir, entry.name);
      if (path === task.dir || (entry.isDirectory() && existsSync(join(path, "task.json")))) continue;
      await cp(path, join(suite, entry.name), { recursive: true, dereference: true });
    }
  }
  return copy;
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
