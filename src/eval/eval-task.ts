import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

/** The tools a task may add to the workspace tools, by the name task.json gives them. */
export const TASK_TOOLS = ["corpus"] as const;
export type TaskToolName = (typeof TASK_TOOLS)[number];

const TASK_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

const TaskJson = z.strictObject({
  title: z.string().min(1),
  /** What kind of work it is (code, data, research…): a column of the report, nothing more. */
  kind: z.string().min(1).default("task"),
  /** The most model calls a trial may make before it counts as a max-steps failure. */
  maxSteps: z.number().int().min(1).max(1000).default(60),
  tools: z.array(z.enum(TASK_TOOLS)).default([]),
  /** The corpus folder the corpus tools search, relative to the task folder. */
  corpus: z.string().min(1).default("corpus"),
  /** How long check.mjs may take (ms). */
  checkTimeoutMs: z.number().int().min(100).max(600_000).default(60_000),
});

/**
 * One task of a suite, loaded from its folder: `task.json`, `prompt.md`, `setup/` (copied into each
 * trial's fresh workspace), `check.mjs` (run outside the agent's reach), and optionally `solution/`
 * (`files/` laid over the workspace and `answer.md`: a right result, for testing the check).
 */
export type EvalTask = {
  id: string;
  dir: string;
  title: string;
  kind: string;
  maxSteps: number;
  tools: TaskToolName[];
  prompt: string;
  /** The folder whose files start each trial's workspace; undefined when the workspace starts empty. */
  setupDir: string | undefined;
  checkPath: string;
  checkTimeoutMs: number;
  /** The corpus folder, when the task has the corpus tools. */
  corpusDir: string | undefined;
  solutionDir: string | undefined;
  /**
   * The suite folder the task came from (loadSuite): its folders that are not tasks (shared helpers
   * such as `_checks/`) are copied beside the task for its check. Absent: the check gets the task's folder alone.
   */
  suiteDir?: string;
};

/** A suite or task folder that does not hold what it should; the message says what and where. */
export class EvalTaskError extends Error {
  override name = "EvalTaskError";
}

/** The suite shipped with the package (eval-suite/ beside src/ and dist/). */
export const BUILTIN_SUITE = fileURLToPath(new URL("../../eval-suite/", import.meta.url));

export function loadTask(dir: string): EvalTask {
  const id = basename(resolve(dir));
  if (!TASK_ID.test(id)) throw new EvalTaskError(`task folder "${id}" needs a name of lowercase letters, digits, ".", "_" or "-" (it is the task's id)`);
  const file = (name: string) => join(dir, name);
  for (const name of ["task.json", "prompt.md", "check.mjs"]) {
    if (!existsSync(file(name))) throw new EvalTaskError(`task ${id} has no ${name} (in ${dir}); a task folder holds task.json, prompt.md, check.mjs and setup/`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file("task.json"), "utf8"));
  } catch (error) {
    throw new EvalTaskError(`task ${id}: task.json is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = TaskJson.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new EvalTaskError(`task ${id}: task.json ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "is not valid"}`);
  }
  const json = parsed.data;
  const prompt = readFileSync(file("prompt.md"), "utf8").trim();
  if (!prompt) throw new EvalTaskError(`task ${id}: prompt.md is empty`);
  const folder = (path: string) => (existsSync(path) && statSync(path).isDirectory() ? path : undefined);
  const corpusDir = json.tools.includes("corpus") ? folder(resolve(dir, json.corpus)) : undefined;
  if (json.tools.includes("corpus") && !corpusDir) throw new EvalTaskError(`task ${id}: its corpus folder ${resolve(dir, json.corpus)} does not exist`);
  return {
    id,
    dir: resolve(dir),
    title: json.title,
    kind: json.kind,
    maxSteps: json.maxSteps,
    tools: json.tools,
    prompt,
    setupDir: folder(file("setup")),
    checkPath: resolve(file("check.mjs")),
    checkTimeoutMs: json.checkTimeoutMs,
    corpusDir,
    solutionDir: folder(file("solution")),
  };
}

/** Every task folder in a suite folder (those holding a task.json), by id. */
export function loadSuite(dir: string): EvalTask[] {
  const root = resolve(dir);
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new EvalTaskError(`suite folder ${root} does not exist`);
  const tasks = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, "task.json")))
    .map((entry) => ({ ...loadTask(join(root, entry.name)), suiteDir: root }))
    .sort((a, b) => a.id.localeCompare(b.id));
  if (tasks.length === 0) throw new EvalTaskError(`suite folder ${root} holds no tasks (folders with a task.json)`);
  return tasks;
}
