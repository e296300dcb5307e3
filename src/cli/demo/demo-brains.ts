import type { ChatModel, ModelRequest } from "../../core/model.js";
import { reactiveModel, type ScriptedTurn } from "../../models/scripted.js";
import type { ModelRole, ModelsByRole } from "../../runs/strategies.js";
import type { StrategyName } from "../../runs/strategies.js";
import { planInHint } from "./plan-in-hint.js";
import { readRequest, type RequestFacts } from "./request-reading.js";
import { todosInRequest, writeSaved } from "./todos-in-request.js";
import { filesInListing, REPORT_PATH, reportMarkdown, summarizeRead, type FileSummary } from "./workspace-survey.js";

/**
 * `--model scripted:demo`: a scripted brain for each strategy and role that does the demo job (survey
 * the workspace, read its files, write report.md) with the real tools. Each answer is derived from the
 * request, so a run resumed from a checkpoint picks up where it stopped.
 */
export function demoModels(strategy: StrategyName, opts: { latencyMs?: number } = {}): ModelsByRole {
  const brains: Partial<Record<ModelRole, (req: ModelRequest) => ScriptedTurn>> = BRAINS[strategy] ?? {};
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

/** write_file's answer when the file was written; anything else (a refusal, an error) means it was not. */
const WROTE = /^Wrote \d+ bytes to /;

/** What became of the last attempt to write the report: not tried yet, written, or refused with a reason. */
type WriteOutcome = { state: "untried" } | { state: "written" } | { state: "refused"; why: string };

function reportWrite(facts: RequestFacts): WriteOutcome {
  const last = facts.results("write_file").at(-1);
  if (!last) return { state: "untried" };
  return WROTE.test(last.text) ? { state: "written" } : { state: "refused", why: quoted(last.text) };
}

/** A tool's answer in one bounded line, to quote. */
function quoted(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
}

// The answer names no counts: by the end, context folding may have folded the reads out of the request.
function finalAnswer(written: boolean, why = "", extra = ""): string {
  const done = written
    ? `I surveyed the workspace, read its files and wrote ${REPORT_PATH} with a line per file.`
    : `I surveyed the workspace and read its files, but ${REPORT_PATH} was not written${why ? `: write_file answered: ${why}` : ""}.`;
  return extra ? `${done} ${extra}` : done;
}

/**
 * The work tools' part of a step: list the workspace if no listing is in view, read what is not read
 * yet (after a resume or a fold too); undefined when both are in hand.
 */
function surveyAndRead(facts: RequestFacts): ScriptedTurn | undefined {
  const listing = facts.lastResult("list_dir");
  if (listing === undefined) return listRoot();
  const read = new Set(summaries(facts).map((row) => row.path));
  if (filesInListing(listing).some((path) => !read.has(path))) return readAll(facts);
  return undefined;
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
    // No current plan: either none was made yet, or it is finished and the user gets the answer,
    // told from how the plan was finished (the write itself may be folded out of view by now).
    const finished = facts.results("finish_plan").at(-1);
    if (!finished) return facts.results("create_plan").length > 0 ? finalAnswer(true) : call("create_plan", PLAN);
    return finished.args["state"] === "done" ? finalAnswer(true) : `I surveyed the workspace and read its files, but ${String(finished.args["outcome"])}`;
  }
  const active = plan.findIndex((s) => s.state === "in_progress");
  if (active < 0) {
    const next = plan.findIndex((s) => s.state === "todo");
    if (next >= 0) return call("update_subtask_state", { subtask_idx: next, state: "in_progress" });
    const write = reportWrite(facts);
    if (plan.some((s) => s.state === "abandoned")) {
      const why = write.state === "refused" ? `: write_file answered: ${write.why}` : "";
      return call("finish_plan", { state: "abandoned", outcome: `${REPORT_PATH} was not written${why}.` });
    }
    return call("finish_plan", { state: "done", outcome: `${REPORT_PATH} is written.` });
  }
  const finish = (outcome: string) => call("finish_subtask", { subtask_idx: active, subtask_outcome: outcome });
  const name = plan[active]?.name;
  const listing = facts.lastResult("list_dir");
  if (name === SURVEY && listing !== undefined) return finish(`Found: ${filesInListing(listing).join(", ")}`);
  const write = reportWrite(facts);
  // The write was refused or failed: give that subtask up rather than claim it done.
  if (name === WRITE && write.state === "refused") return call("update_subtask_state", { subtask_idx: active, state: "abandoned" });
  const work = surveyAndRead(facts);
  if (work) return work;
  if (name === READ) return finish(`Read ${summaries(facts).length} file(s).`);
  if (write.state === "untried") return writeReport(summaries(facts));
  return finish(`Wrote ${REPORT_PATH}.`);
}

const taskUpdateCall = (task_id: string, change: Record<string, unknown>) => ({ name: "TaskUpdate", arguments: { task_id, ...change } });
const taskUpdate = (task_id: string, change: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [taskUpdateCall(task_id, change)] });

const TASK_SUBJECTS = [SURVEY, READ, WRITE] as const;

/** The ids the board gave this run's tasks, by subject, read off TaskCreate's answers (`Created task #7: …`). */
function createdTasks(facts: RequestFacts): Map<string, string> {
  const ids = new Map<string, string>();
  for (const { args, text } of facts.results("TaskCreate")) {
    const id = /^Created task #([^:\s]+):/.exec(text)?.[1];
    if (id) ids.set(String(args["subject"]), id);
  }
  return ids;
}

/** Each task's state as TaskUpdate last reported it (`Updated task #7 [in_progress] …`); pending before any. */
function reportedStates(facts: RequestFacts): Map<string, string> {
  const states = new Map<string, string>();
  for (const { text } of facts.results("TaskUpdate")) {
    const match = /^Updated task #(\S+) \[(\w+)\]/.exec(text);
    if (match?.[1] && match[2]) states.set(match[1], match[2]);
  }
  return states;
}

/**
 * The task-board brain. It looks at the board first (it may be shared and hold other runs' tasks,
 * which it leaves alone), creates its own three tasks, and from then on uses the ids the board gave
 * them. It decides from what the tools answered, so a refused write is given back to the board, not
 * marked done, and the answer says so.
 */
function tasks(req: ModelRequest): ScriptedTurn {
  const facts = readRequest(req);
  const board = facts.results("TaskList")[0]?.text;
  if (board === undefined) return call("TaskList", {});
  const ids = createdTasks(facts);
  if (facts.results("TaskCreate").length === 0) {
    return { toolCalls: TASK_SUBJECTS.map((subject) => ({ name: "TaskCreate", arguments: { subject, description: `${subject} for the workspace report.` } })) };
  }
  const [survey, read, write] = TASK_SUBJECTS.map((subject) => ids.get(subject));
  if (!survey || !read || !write) return `I could not set up my tasks on the board: TaskCreate answered: ${quoted(facts.lastResult("TaskCreate") ?? "")}.`;
  const earlier = board.split("\n").filter((line) => line.startsWith("#")).length;
  const others = earlier > 0 ? `The board already held ${earlier} task(s) from earlier work; I left them as they were and worked on #${survey}, #${read} and #${write}.` : "";
  const lastUpdate = facts.lastResult("TaskUpdate");
  if (lastUpdate === undefined) {
    return { toolCalls: [taskUpdateCall(read, { add_blocked_by: [survey] }), taskUpdateCall(write, { add_blocked_by: [read] })] };
  }
  // An update the board refused (another worker took the task, say): stop and say so rather than loop.
  if (!lastUpdate.startsWith("Updated task")) return `I stopped: the board refused a change, answering: ${quoted(lastUpdate)} ${others}`.trim();
  const states = reportedStates(facts);
  const outcome = reportWrite(facts);
  for (const [subject, id] of [[SURVEY, survey], [READ, read], [WRITE, write]] as const) {
    const state = states.get(id) ?? "pending";
    if (state === "completed") continue;
    if (subject === WRITE && outcome.state === "refused") {
      // Refused or failed: hand the task back, unowned and with the reason, for someone who can do it.
      if (state === "in_progress") return taskUpdate(id, { status: "pending", owner: "", description: `Not done yet: write_file answered: ${outcome.why}.` });
      return finalAnswer(false, outcome.why, `Task #${id} is back on the board, pending. ${others}`.trim());
    }
    if (state === "pending") return taskUpdate(id, { status: "in_progress" });
    const work = subject === SURVEY ? (facts.lastResult("list_dir") === undefined ? listRoot() : undefined) : surveyAndRead(facts);
    if (work) return work;
    if (subject === WRITE && outcome.state === "untried") return writeReport(summaries(facts));
    return taskUpdate(id, { status: "completed" });
  }
  return finalAnswer(true, "", others);
}

/**
 * The todo-list brain follows write_todos' description: it creates the list with `todos` once, then
 * sends only changes, `updates` by the ids the list shows. It decides from the list its writes made and
 * the tools' answers, so a refused report write goes back to pending, not completed, and the answer
 * says so; a write_todos call that was not saved (refused, or rejected by the user) ends the run with its reason.
 */
function todos(req: ModelRequest): ScriptedTurn {
  const facts = readRequest(req);
  const saved = facts.lastResult("write_todos");
  if (saved !== undefined && !writeSaved(saved)) return `I stopped: write_todos answered: ${quoted(saved)}`;
  const list = todosInRequest(req);
  if (list === null) {
    const items = TASK_SUBJECTS.map((content, i) => ({ content, status: i === 0 ? "in_progress" : "pending" }));
    return call("write_todos", { todos: items });
  }
  const idOf = (subject: string) => list.find((item) => item.content === subject)?.id ?? "";
  const updates = (changes: [string, string][]) => call("write_todos", { updates: Object.fromEntries(changes.map(([subject, status]) => [idOf(subject), status])) });
  const outcome = reportWrite(facts);
  const active = list.find((item) => item.status === "in_progress")?.content;
  if (active === SURVEY) return facts.lastResult("list_dir") === undefined ? listRoot() : updates([[SURVEY, "completed"], [READ, "in_progress"]]);
  if (active === READ) return surveyAndRead(facts) ?? updates([[READ, "completed"], [WRITE, "in_progress"]]);
  if (active === WRITE) {
    if (outcome.state === "untried") return writeReport(summaries(facts));
    // A refused or failed write stays on the list, not done.
    return updates([[WRITE, outcome.state === "written" ? "completed" : "pending"]]);
  }
  return outcome.state === "refused" ? finalAnswer(false, outcome.why) : finalAnswer(true);
}

/** Summaries travel between sub-agents as text: one `- path: N lines; first line: …` line per file. */
const SUMMARY_LINE = /^- (.+?): (\d+) lines; first line: (.*)$/gm;

function summaryLines(rows: readonly FileSummary[]): string {
  return ["Files read:", ...rows.map((r) => `- ${r.path}: ${r.lines} lines; first line: ${r.firstLine}`)].join("\n");
}

function summariesInText(text: string): FileSummary[] {
  return [...text.matchAll(SUMMARY_LINE)].map((m) => ({ path: m[1] ?? "", lines: Number(m[2]), firstLine: m[3] ?? "" }));
}

/** How an executor says its write failed; the brains above it look for this in its results. */
const NOT_WRITTEN = `Could not write ${REPORT_PATH}`;

/** An executor's report of a failed write, found in the text a planner or agent is shown; undefined when none failed. */
function writeFailureIn(text: string): string | undefined {
  return new RegExp(`${NOT_WRITTEN}: .*`).exec(text)?.[0];
}

/** An executor sub-agent: reads the files or writes the report, as its step says. */
function executor(req: ModelRequest): ScriptedTurn {
  const facts = readRequest(req);
  const step = /(?:Current step|Your subtask \(\d+ of \d+\)): (.*)/.exec(facts.input)?.[1] ?? "";
  if (step.startsWith(WRITE)) {
    const outcome = reportWrite(facts);
    if (outcome.state === "untried") return writeReport(summariesInText(facts.input));
    return outcome.state === "written" ? `Wrote ${REPORT_PATH}.` : `${NOT_WRITTEN}: write_file answered: ${outcome.why}.`;
  }
  if (facts.turn === 0) return listRoot();
  if (facts.turn === 1) return readAll(facts);
  return summaryLines(summaries(facts));
}

const STEPS = [READ, WRITE];

const planTool = {
  agent: byTurn([
    (f) => ({ toolCalls: [{ name: "plan", arguments: { task: f.input } }] }),
    (f) => {
      const results = f.lastResult("plan") ?? "";
      const failure = writeFailureIn(results);
      return failure ? `The plan ran, but ${REPORT_PATH} was not written. ${failure}` : `Done: the plan ran and ${REPORT_PATH} is written.`;
    },
  ]),
  planner: byTurn([listRoot, () => JSON.stringify({ subtasks: STEPS })]),
  executor,
};

const planExecute = {
  planner: (req: ModelRequest): ScriptedTurn => {
    const text = req.messages.map((m) => m.content).join("\n");
    if (!text.includes("Steps done and their results")) return JSON.stringify({ steps: STEPS });
    if (text.includes("(none)")) {
      const failure = writeFailureIn(text);
      return JSON.stringify({ answer: failure ? `The files were read, but ${REPORT_PATH} was not written. ${failure}` : `The workspace is surveyed and ${REPORT_PATH} is written.` });
    }
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
  // The solver reads the save step's evidence: write_file's own answer, or why it has none.
  solver: (req: ModelRequest): ScriptedTurn => {
    const text = req.messages.map((m) => m.content).join("\n");
    if (new RegExp(`Wrote \\d+ bytes to ${REPORT_PATH}`).test(text)) return `The workspace is surveyed and ${REPORT_PATH} is written.`;
    return `The lines were gathered, but ${REPORT_PATH} was not written: the save step did not succeed.`;
  },
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

/** A finished task as the compiler's prompts show it: `3. read_file({"path":"a.md"}) -> result…`, the result maybe over many lines. */
const FINISHED_TASK = /^(\d+)\. (\w+)\((.*)\) -> /;

/** Each finished task's call and result, from the text of a compiler prompt. */
function finishedTasks(text: string): { tool: string; args: Record<string, unknown>; result: string }[] {
  return text.split(/^(?=\d+\. \w+\(.*\) -> )/m).flatMap((part) => {
    const match = FINISHED_TASK.exec(part);
    if (!match) return [];
    let args: Record<string, unknown> = {};
    try {
      args = JSON.parse(match[3] ?? "") as Record<string, unknown>;
    } catch {
      // Not JSON arguments: not one of ours.
    }
    return [{ tool: match[2] ?? "", args, result: part.slice(match[0].length) }];
  });
}

/**
 * The compiler's rounds: list the files; read them all in parallel; write the report from what the
 * reads returned. The joiner asks for the next round until the report is written, and on the last
 * round answers with what it has.
 */
const compiler = {
  planner: (req: ModelRequest): ScriptedTurn => {
    const text = req.messages.map((m) => m.content).join("\n");
    const plan = (tasks: object[]) => [...tasks, { tool: "join" }].map((task) => JSON.stringify(task)).join("\n");
    const first = Number(/Number new tasks from (\d+)/.exec(text)?.[1] ?? 1);
    const done = finishedTasks(text);
    const reads = done.filter((task) => task.tool === "read_file");
    if (reads.length > 0) {
      const rows = reads.map((task) => summarizeRead(String(task.args["path"]), task.result));
      return plan([{ id: first, tool: "write_file", args: { path: REPORT_PATH, content: reportMarkdown(rows) } }]);
    }
    const listing = done.find((task) => task.tool === "list_dir");
    if (!listing) return plan([{ id: first, tool: "list_dir", args: { path: ".", recursive: true } }]);
    return plan(filesInListing(listing.result).map((path, i) => ({ id: first + i, tool: "read_file", args: { path } })));
  },
  joiner: (req: ModelRequest): ScriptedTurn => {
    const text = req.messages.map((m) => m.content).join("\n");
    const write = finishedTasks(text).findLast((task) => task.tool === "write_file");
    if (write && WROTE.test(write.result)) {
      return JSON.stringify({ action: "finish", answer: `The files were read in parallel and ${REPORT_PATH} is written.` });
    }
    if (text.includes("This was the last planning round")) {
      const why = write ? `: write_file answered: ${quoted(write.result)}` : "";
      return JSON.stringify({ action: "finish", answer: `The files were read, but ${REPORT_PATH} was not written${why}.` });
    }
    return JSON.stringify({ action: "replan", reason: write ? `Writing ${REPORT_PATH} failed; try again.` : `The files still have to be read and ${REPORT_PATH} written.` });
  },
};

// The demo shows the planning strategies; the plain ReAct baseline has no script of its own.
const BRAINS: Partial<Record<StrategyName, Partial<Record<ModelRole, (req: ModelRequest) => ScriptedTurn>>>> = {
  notebook: { agent: notebook },
  tasks: { agent: tasks },
  todos: { agent: todos },
  "plan-tool": planTool,
  "plan-execute": planExecute,
  rewoo,
  compiler,
};
