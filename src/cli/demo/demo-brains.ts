import type { ChatModel, ModelRequest } from "../../core/model.js";
import { reactiveModel, type ScriptedTurn } from "../../models/scripted.js";
import type { ModelRole, ModelsByRole } from "../../runs/strategies.js";
import type { StrategyName } from "../../runs/strategies.js";
import { planInHint } from "./plan-in-hint.js";
import { readRequest, type RequestFacts } from "./request-reading.js";
import { filesInListing, REPORT_PATH, reportMarkdown, summarizeRead, type FileSummary } from "./workspace-survey.js";

/**
 * `--model scripted:demo`: a scripted brain for each strategy and role that does the demo job (survey
 * the workspace, read its files, write report.md) with the real tools. Each answer is derived from the
 * request, so a run resumed from a checkpoint picks up where it stopped.
 */
export function demoModels(strategy: StrategyName, opts: { latencyMs?: number } = {}): ModelsByRole {
  const brains: Partial<Record<ModelRole, (req: ModelRequest) => ScriptedTurn>> = BRAINS[strategy];
  const models = new Map<ModelRole, ChatModel>();
  return (role) => {
    const decide = brains[role];
    if (!decide) throw new Error(`the ${strategy} demo has no script for the ${role} role`);
    let model = models.get(role);
    if (!model) models.set(role, (model = reactiveModel(decide, { id: `scripted:demo/${strategy}/${role}`, ...opts })));
    return model;
  };
}

const SURVEY = "Survey the workspace";
const READ = "Read every file";
const WRITE = `Write ${REPORT_PATH}`;

const listRoot = (): ScriptedTurn => ({ toolCalls: [{ name: "list_dir", arguments: { path: ".", recursive: true } }] });

function readAll(facts: RequestFacts): ScriptedTurn {
  const files = filesInListing(facts.lastResult("list_dir") ?? "");
  if (files.length === 0) return { content: "The workspace has no files to read." };
  return { toolCalls: files.map((path) => ({ name: "read_file", arguments: { path } })) };
}

/** One summary per file read; a file read again (after a resume) counts once, with its latest result. */
function summaries(facts: RequestFacts): FileSummary[] {
  const byPath = new Map<string, FileSummary>();
  for (const { args, text } of facts.results("read_file")) byPath.set(String(args["path"]), summarizeRead(String(args["path"]), text));
  return [...byPath.values()];
}

const writeReport = (rows: FileSummary[]): ScriptedTurn => ({
  toolCalls: [{ name: "write_file", arguments: { path: REPORT_PATH, content: reportMarkdown(rows) } }],
});

// The answer names no counts: by the end, context folding may have folded the reads out of the request.
function finalAnswer(): string {
  return `I surveyed the workspace, read its files and wrote ${REPORT_PATH} with a line per file.`;
}

function byTurn(script: ((facts: RequestFacts) => ScriptedTurn)[]): (req: ModelRequest) => ScriptedTurn {
  return (req) => {
    const facts = readRequest(req);
    const step = script[Math.min(facts.turn, script.length - 1)] as (facts: RequestFacts) => ScriptedTurn;
    return step(facts);
  };
}

const PLAN = {
  name: "Workspace report",
  description: "Find out what the workspace holds and write it up in report.md.",
  expected_outcome: "report.md lists every file with its size and first line.",
  subtasks: [
    { name: SURVEY, description: "List every file in the workspace.", expected_outcome: "The list of files." },
    { name: READ, description: "Read each file found.", expected_outcome: "A summary line per file." },
    { name: WRITE, description: "Write the summaries to report.md.", expected_outcome: "report.md exists." },
  ],
};

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ name, arguments: args }] });

/**
 * The notebook brain decides from the plan the hint shows, not from how many turns it took: a run
 * resumed from a checkpoint older than the plan (killed between a plan change and the checkpoint)
 * neither plans twice nor finishes a subtask twice. The work tools it repeats are idempotent.
 */
function notebook(req: ModelRequest): ScriptedTurn {
  const facts = readRequest(req);
  const plan = planInHint(req);
  if (plan === null) {
    // No current plan: either none was made yet, or it is finished and the user gets the answer.
    return facts.results("create_plan").length > 0 ? finalAnswer() : call("create_plan", PLAN);
  }
  const active = plan.findIndex((s) => s.state === "in_progress");
  if (active < 0) {
    const next = plan.findIndex((s) => s.state === "todo");
    if (next < 0) return call("finish_plan", { state: "done", outcome: `${REPORT_PATH} is written.` });
    return call("update_subtask_state", { subtask_idx: next, state: "in_progress" });
  }
  const finish = (outcome: string) => call("finish_subtask", { subtask_idx: active, subtask_outcome: outcome });
  const listing = facts.lastResult("list_dir");
  if (listing === undefined) return listRoot();
  const files = filesInListing(listing);
  const name = plan[active]?.name;
  if (name === SURVEY) return finish(`Found: ${files.join(", ")}`);
  const read = new Set(summaries(facts).map((row) => row.path));
  if (files.some((path) => !read.has(path))) return readAll(facts);
  if (name === READ) return finish(`Read ${read.size} file(s).`);
  if (facts.results("write_file").length === 0) return writeReport(summaries(facts));
  return finish(`Wrote ${REPORT_PATH}.`);
}

const taskUpdate = (task_id: string, change: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name: "TaskUpdate", arguments: { task_id, ...change } }],
});

const tasks = byTurn([
  () => ({
    toolCalls: [SURVEY, READ, WRITE].map((subject) => ({
      name: "TaskCreate",
      arguments: { subject, description: `${subject} for the workspace report.` },
    })),
  }),
  () => ({
    toolCalls: [
      { name: "TaskUpdate", arguments: { task_id: "2", add_blocked_by: ["1"] } },
      { name: "TaskUpdate", arguments: { task_id: "3", add_blocked_by: ["2"] } },
    ],
  }),
  () => taskUpdate("1", { status: "in_progress" }),
  listRoot,
  () => taskUpdate("1", { status: "completed" }),
  () => taskUpdate("2", { status: "in_progress" }),
  readAll,
  () => taskUpdate("2", { status: "completed" }),
  () => taskUpdate("3", { status: "in_progress" }),
  (f) => writeReport(summaries(f)),
  () => taskUpdate("3", { status: "completed" }),
  () => finalAnswer(),
]);

const todosAt = (active: number): ScriptedTurn => ({
  toolCalls: [
    {
      name: "write_todos",
      arguments: {
        todos: [SURVEY, READ, WRITE].map((content, i) => ({
          content,
          status: i < active ? "completed" : i === active ? "in_progress" : "pending",
        })),
      },
    },
  ],
});

const todos = byTurn([
  () => todosAt(0),
  listRoot,
  () => todosAt(1),
  readAll,
  () => todosAt(2),
  (f) => writeReport(summaries(f)),
  () => todosAt(3),
  () => finalAnswer(),
]);

/** Summaries travel between sub-agents as text: one `- path: N lines; first line: …` line per file. */
const SUMMARY_LINE = /^- (.+?): (\d+) lines; first line: (.*)$/gm;

function summaryLines(rows: readonly FileSummary[]): string {
  return ["Files read:", ...rows.map((r) => `- ${r.path}: ${r.lines} lines; first line: ${r.firstLine}`)].join("\n");
}

function summariesInText(text: string): FileSummary[] {
  return [...text.matchAll(SUMMARY_LINE)].map((m) => ({ path: m[1] ?? "", lines: Number(m[2]), firstLine: m[3] ?? "" }));
}

/** An executor sub-agent: reads the files or writes the report, as its step says. */
function executor(req: ModelRequest): ScriptedTurn {
  const facts = readRequest(req);
  const step = /(?:Current step|Your subtask \(\d+ of \d+\)): (.*)/.exec(facts.input)?.[1] ?? "";
  if (step.startsWith(WRITE)) {
    if (facts.turn === 0) return writeReport(summariesInText(facts.input));
    return `Wrote ${REPORT_PATH}.`;
  }
  if (facts.turn === 0) return listRoot();
  if (facts.turn === 1) return readAll(facts);
  return summaryLines(summaries(facts));
}

const STEPS = [READ, WRITE];

const planTool = {
  agent: byTurn([
    (f) => ({ toolCalls: [{ name: "plan", arguments: { task: f.input } }] }),
    (f) => `Done: ${f.lastResult("plan")?.split("\n").length ?? 0} line(s) of results; ${REPORT_PATH} is written.`,
  ]),
  planner: byTurn([listRoot, () => JSON.stringify({ subtasks: STEPS })]),
  executor,
};

const planExecute = {
  planner: (req: ModelRequest): ScriptedTurn => {
    const text = req.messages.map((m) => m.content).join("\n");
    if (!text.includes("Steps done and their results")) return JSON.stringify({ steps: STEPS });
    if (text.includes("(none)")) return JSON.stringify({ answer: `The workspace is surveyed and ${REPORT_PATH} is written.` });
    return JSON.stringify({ steps: [WRITE] });
  },
  executor,
};

/** ReWOO plans blind: one search reads every line, the LLM worker writes the report, write_file saves it. */
const rewoo = {
  planner: (): ScriptedTurn =>
    JSON.stringify({
      steps: [
        { plan: "Read every non-empty line of every file", id: "#E1", tool: "search", input: { pattern: ".", regex: true } },
        { plan: "Turn the lines into the report", id: "#E2", tool: "LLM", input: `Write ${REPORT_PATH} from these lines:\n#E1` },
        { plan: "Save the report", id: "#E3", tool: "write_file", input: { path: REPORT_PATH, content: "#E2" } },
      ],
    }),
  executor: (req: ModelRequest): ScriptedTurn => reportMarkdown(summariesFromSearch(readRequest(req).input)),
  solver: (): ScriptedTurn => `The workspace is surveyed and ${REPORT_PATH} is written.`,
};

/** `path:line: text` search hits, grouped per file. */
function summariesFromSearch(text: string): FileSummary[] {
  const files = new Map<string, FileSummary>();
  for (const match of text.matchAll(/^(\S+?):(\d+): (.*)$/gm)) {
    const [, path = "", line = "0", content = ""] = match;
    const summary = files.get(path) ?? { path, lines: 0, firstLine: content.replace(/^#+\s*/, "") };
    summary.lines = Math.max(summary.lines, Number(line));
    files.set(path, summary);
  }
  return [...files.values()];
}

/**
 * The compiler's rounds: list the files; then read them all in parallel and write the report from
 * their results (`$n`); the joiner asks for the second round, then finishes.
 */
const compiler = {
  planner: (req: ModelRequest): ScriptedTurn => {
    const text = req.messages.map((m) => m.content).join("\n");
    if (!text.includes("Tasks already run")) {
      return [JSON.stringify({ id: 1, tool: "list_dir", args: { path: ".", recursive: true } }), JSON.stringify({ tool: "join" })].join("\n");
    }
    const first = Number(/Number new tasks from (\d+)/.exec(text)?.[1] ?? 2);
    const files = [...new Set([...text.matchAll(/([\w./-]+) \((\d+) bytes\)/g)].map((m) => m[1] ?? ""))].filter((f) => f !== REPORT_PATH);
    const reads = files.map((path, i) => ({ id: first + i, tool: "read_file", args: { path } }));
    const content = ["# Workspace report", "", ...reads.map((r) => `## ${r.args.path}\n$${r.id}\n`)].join("\n");
    const write = { id: first + reads.length, tool: "write_file", args: { path: REPORT_PATH, content } };
    return [...reads, write, { tool: "join" }].map((task) => JSON.stringify(task)).join("\n");
  },
  joiner: (req: ModelRequest): ScriptedTurn => {
    const text = req.messages.map((m) => m.content).join("\n");
    if (/write_file\(.*\) -> Wrote/.test(text)) {
      return JSON.stringify({ action: "finish", answer: `The files were read in parallel and ${REPORT_PATH} is written.` });
    }
    return JSON.stringify({ action: "replan", reason: "The files still have to be read and the report written." });
  },
};

const BRAINS: Record<StrategyName, Partial<Record<ModelRole, (req: ModelRequest) => ScriptedTurn>>> = {
  notebook: { agent: notebook },
  tasks: { agent: tasks },
  todos: { agent: todos },
  "plan-tool": planTool,
  "plan-execute": planExecute,
  rewoo,
  compiler,
};
