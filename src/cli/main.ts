#!/usr/bin/env node
import { createRequire } from "node:module";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { APPROVAL_MODES } from "../runs/approval-mode.js";
import { STRATEGIES } from "../runs/strategies.js";
import { RunInputError } from "../runs/run-input-error.js";
import { promptingApprover } from "./approval-prompt.js";
import { approveEverything, decisionsFromFile, DECISIONS_FORMAT } from "./given-decisions.js";
import { CliError } from "./cli-error.js";
import { exitCodeOf, exitCodesHelp } from "./run-endings.js";
import { runDemo } from "./demo/demo-command.js";
import { DEMO_MODEL, modelsFor } from "./model-option.js";
import { mcpCommand } from "./mcp-command.js";
import { collectMcpOption, MCP_OPTION_FORMAT } from "./mcp-servers.js";
import { PLANS_LISTED, plansList, plansShow } from "./plans-command.js";
import { RUNS_LISTED, runsList, runsShow } from "./runs-command.js";
import { RUN_STATUSES, runStatusOf, type RunStatus } from "../stores/run-store.js";
import { openRuns } from "../runs/runs.js";
import { cliMcpConnections, cliTools, openCliStores, RUN_DEFAULTS, runCommand, type RunCommandOptions } from "./run-command.js";
import { workerCommand } from "./worker-command.js";
import { restateServeCommand } from "./restate-command.js";
import { restateDriverFor, restateIngressOption } from "./restate-ingress.js";
import { evalCommand } from "./eval-command.js";
import { defaultDatabasePath } from "./stepwise-home.js";
import { storeProblem } from "./store-problem.js";
import { TASK_LIST_DEFAULT_LIMIT } from "../planning/tasks/task-text.js";
import { TASK_STATES, type TaskState } from "../planning/tasks/task.js";
import { tasksBoards, tasksList, tasksShow, type TasksListOptions } from "./tasks-command.js";
import { terminalPrompter } from "./terminal-prompter.js";
import { TerminalOutput } from "./terminal-text.js";
import { boundedText } from "../core/bounded-quote.js";
import { startViewer } from "../web/viewer-server.js";
import { HostNeedsTokenError } from "../integrations/http-access.js";

// Every command writes through these: what a model or a server wrote can never drive the terminal.
const stdout = new TerminalOutput(process.stdout);
const stderr = new TerminalOutput(process.stderr);
// A reader that left (`stepwise runs list | head -1`) ends any command at once and without a word, as
// SIGPIPE ends other tools: a run stops as if killed, its last checkpoint kept for --resume.
for (const output of [stdout, stderr]) output.whenReaderLeaves(() => process.exit(exitCodeOf("output-closed")));

// package.json sits two folders up from both src/cli/ and dist/cli/.
const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

const program = new Command()
  .name("stepwise")
  .description("Explicit, inspectable plans for LLM agents.")
  .version(version, "-V, --version", "print the version")
  .addHelpText("after", `\n${exitCodesHelp()}`)
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(`stepwise: ${text.replace(/^error: /, "")}`) });

let database: string | undefined;
/** The store file, found (and its folder made) once; kept so an error about it can name it. */
const storePath = (): string => (database ??= defaultDatabasePath());
/** The store file for a command that only reads: never made here (opening it then needs it to exist). */
const readStorePath = (): string => (database ??= defaultDatabasePath(process.env, { create: false }));

type RunOptions = Omit<RunCommandOptions, "database"> & { decisions?: string; approveAll?: boolean };

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number of at least 1.");
  return n;
}

function portNumber(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("expected a port number from 0 to 65535.");
  return n;
}

function runStatuses(value: string): RunStatus[] {
  // A script written before a status was renamed (--status finished) still picks its runs.
  const statuses = value.split(",").map((part) => part.trim()).filter(Boolean).map(runStatusOf);
  const unknown = statuses.find((status) => !(RUN_STATUSES as readonly string[]).includes(status));
  if (statuses.length === 0 || unknown !== undefined) throw new InvalidArgumentError(`expected one or more of: ${RUN_STATUSES.join(", ")} (comma-separated).`);
  return statuses as RunStatus[];
}

function taskStatus(value: string): TaskState {
  if ((TASK_STATES as readonly string[]).includes(value)) return value as TaskState;
  throw new InvalidArgumentError(`expected one of: ${TASK_STATES.join(", ")}.`);
}

program
  .command("run")
  .description("Run an agent on a task in a workspace, showing its plan live.")
  .argument("[task]", "what the agent should do")
  .addOption(new Option("-s, --strategy <name>", "planning strategy").choices(STRATEGIES).default(RUN_DEFAULTS.strategy))
  .option("-m, --model <spec>", `model: openai:gpt-4o-mini, anthropic:…, dashscope:…, deepseek:…, ollama:…, or ${DEMO_MODEL}`, RUN_DEFAULTS.model)
  .option("-w, --workspace <dir>", "the folder the agent may read and write", RUN_DEFAULTS.workspace)
  .option("--store <url>", "where runs, plans and boards live: sqlite (default, .stepwise/stepwise.db) or postgres://… (the password may come from PGPASSWORD)")
  .option("--board <id>", "task board id to share between runs (default: the run's id)")
  .option("--resume [id]", "continue a run (default: the last one) from its saved state, with its settings (options given here override them)")
  .option("--max-steps <n>", "most model calls in this invocation: each --resume gets as many again (the run keeps the limit; give --max-steps again to change it)", positiveInteger)
  .option("--context-budget <tokens>", "fold finished plan units out of the context past this size (default 64000)", positiveInteger)
  .addOption(new Option("--approval <mode>", "which calls wait for your approval").choices(APPROVAL_MODES).default(RUN_DEFAULTS.approval))
  .addOption(new Option("--decisions <file>", "decide what waits for approval from a JSON file instead of asking (see below)").conflicts("approveAll"))
  .option("--approve-all", "approve every call and plan that waits, without asking (questions still pause the run)")
  .option("--mcp <name=server>", `use an MCP server's tools, named <name>__<tool> (repeatable): ${MCP_OPTION_FORMAT}`, collectMcpOption)
  .option("--mcp-config <file>", 'use the MCP servers of a {"mcpServers": {…}} config file (read again on --resume)')
  .addOption(restateIngressOption())
  .addHelpText(
    "after",
    `\nWithout --decisions or --approve-all, the terminal asks; piped, answers are read one per line, and "e" (edit) reads ` +
      `the edit as one JSON line.\n--decisions takes ${DECISIONS_FORMAT}.\n\n${exitCodesHelp()}`,
  )
  .action(async (task: string | undefined, all: RunOptions, command: Command) => {
    const { decisions, approveAll, ...opts } = all;
    // A resumed run keeps the settings it was started with: only the options typed here change them.
    const given = opts.resume ? Object.fromEntries(Object.entries(opts).filter(([name]) => command.getOptionValueSource(name) === "cli")) : opts;
    const problem = (text: string) => void stderr.write(`stepwise: ${text}\n`);
    const prompter = terminalPrompter(process.stdin, stdout);
    const approver = decisions ? decisionsFromFile(decisions, problem) : approveAll ? approveEverything(problem) : promptingApprover(prompter);
    try {
      const decidedBy = decisions ? "--decisions" : approveAll ? "--approve-all" : undefined;
      process.exitCode = await runCommand(task, { ...given, database: storePath(), ...(decidedBy ? { decidedBy } : {}) }, { stdout, stderr, approver });
    } finally {
      prompter.close();
    }
  });

program
  .command("worker")
  .description("Drive runs that need a driver: runs whose driver died (lease expired) and paused runs whose decisions were submitted.")
  .option("--store <url>", "sqlite (default) or postgres://… shared with the machines that start runs")
  .option("--once", "take what is waiting now, then exit", false)
  .option("--concurrency <n>", "how many runs to drive at once, each with its own lease (default 1)", positiveInteger)
  .option("--lease <ms>", "how long a run's lease lasts without a heartbeat: how soon another worker takes over the runs of one that died (default 30000)", positiveInteger)
  .option("--mcp <name=server>", `an MCP server runs may use by that name (repeatable): ${MCP_OPTION_FORMAT}`, collectMcpOption)
  .option("--mcp-config <file>", 'MCP servers runs may use, from a {"mcpServers": {…}} config file')
  .option("--resume-attempts <n>", "failed resumes of a run in a row (no key, workspace or tools here; a broken checkpoint) before it is marked failed (default 5)", positiveInteger)
  .option("--resume-backoff <ms>", "how long a run whose resume failed is left before it is tried again, doubled after each failure (default 2000)", positiveInteger)
  .addHelpText(
    "after",
    "\nA run's MCP servers are started only as the Stepwise home that set them signed them (this one's key, $STEPWISE_HOME/mcp-signing.key), " +
      "or as this worker's own --mcp / --mcp-config names them: whoever can write to the store cannot make the worker run their commands.",
  )
  .action(async (opts: { store?: string; once: boolean; concurrency?: number; lease?: number; mcp?: Record<string, string>; mcpConfig?: string; resumeAttempts?: number; resumeBackoff?: number }) => {
    process.exitCode = await workerCommand({ ...opts, database: storePath() }, { stdout, stderr });
  });

const restateGroup = program.command("restate").description("Stepwise runs as a Restate service (needs @restatedev/restate-sdk).");
restateGroup
  .command("serve")
  .description("Serve Stepwise runs to a Restate server: each run an invocation, each model and tool call a journaled step.")
  .option("-p, --port <n>", "port Restate reaches the service on (0 picks a free one)", portNumber, 9080)
  .option("--host <host>", "address to listen on", "127.0.0.1")
  .option("--store <url>", "where the runs' records and events go, for the viewer: sqlite (default) or postgres://…")
  .option("--name <name>", "the workflow's name in Restate (default StepwiseRun)")
  .option("--register <admin-url>", "register the service with Restate's admin API once it listens (such as http://127.0.0.1:9070)")
  .option("--identity-key <key>", "take only requests Restate signed with this key (publickeyv1_…, repeatable)", (value: string, keys: string[] = []) => [...keys, value])
  .addHelpText(
    "after",
    "\nStart a run: curl <ingress, :8080>/StepwiseRun/<run id>/run/send -d '{\"task\": \"…\", \"strategy\": \"todos\", \"model\": \"openai:gpt-4o-mini\"}'\n" +
      "Decide what it waits for: POST {\"<call id>\": {\"action\": \"approve\"}} to …/StepwiseRun/<run id>/decide; …/status shows its plan and pending calls.",
  )
  .action(async (opts: { port: number; host: string; store?: string; name?: string; register?: string; identityKey?: string[] }) => {
    process.exitCode = await restateServeCommand({ ...opts, database: storePath() }, { stdout, stderr });
  });

program
  .command("demo")
  .description("Offline demo: scripted agents plan and do a small job in a temporary workspace, one per strategy.")
  .action(async () => {
    process.exitCode = await runDemo(stdout, stderr);
  });

program
  .command("eval")
  .description("Measure whether planning helps: a task suite under each strategy and plain ReAct, k trials each, scored and charted.")
  .requiredOption("-m, --model <spec>", "model: openai:gpt-4o-mini, anthropic:…, dashscope:…, deepseek:…, ollama:…, or scripted:demo (offline: proves the harness, measures nothing)")
  .option("--strategies <list>", "all, or a comma-separated list (the react baseline is always added)", "all")
  .option("--trials <k>", "trials per task and strategy", positiveInteger, 3)
  .option("--suite <dir>", "a folder of task folders (default: the built-in suite)")
  .option("--concurrency <n>", "trials running at once", positiveInteger, 1)
  .option("--max-tokens <n>", "token budget for the whole eval: past it no trial starts and running ones stop", positiveInteger)
  .option("--out <dir>", "where results.jsonl, runs.db and report.html go; the same folder again resumes", "stepwise-eval")
  .action(async (opts: { model: string; strategies: string; trials: number; suite?: string; concurrency: number; maxTokens?: number; out: string }) => {
    process.exitCode = await evalCommand(opts, { stdout, stderr });
  });

const runsGroup = program.command("runs").description("Read the runs kept in the store.");
runsGroup
  .command("list")
  .description(`One line per run, newest first, with its id, status, time and estimated cost; at most ${RUNS_LISTED} unless --limit says otherwise.`)
  .option("--store <url>", "sqlite (default) or postgres://…")
  .option("--status <list>", `only runs with one of these statuses: ${RUN_STATUSES.join(", ")} (comma-separated)`, runStatuses)
  .option("--limit <n>", `at most this many runs (default ${RUNS_LISTED})`, positiveInteger)
  .action((opts: { store?: string; status?: RunStatus[]; limit?: number }) => runsList({ ...opts, database: readStorePath() }, stdout));
runsGroup
  .command("show")
  .description("A run in full: status, settings, what it used, its plan and answer.")
  .argument("<id>", "run id (a unique prefix is enough)")
  .option("--store <url>", "sqlite (default) or postgres://…")
  .action((id: string, opts: { store?: string }) => runsShow({ ...opts, database: readStorePath() }, id, stdout));

const plans = program.command("plans").description("Read the plans kept in the store.");
plans
  .command("list")
  .description(`One line per plan, newest first; at most ${PLANS_LISTED} unless --limit says otherwise.`)
  .option("--store <url>", "sqlite (default) or postgres://…")
  .option("--limit <n>", `at most this many plans (default ${PLANS_LISTED})`, positiveInteger)
  .action((opts: { store?: string; limit?: number }) => plansList({ ...opts, database: readStorePath() }, stdout));
plans
  .command("show")
  .description("A plan in detail.")
  .argument("<id>", "plan id (a unique prefix is enough)")
  .option("--store <url>", "sqlite (default) or postgres://…")
  .action((id: string, opts: { store?: string }) => plansShow({ ...opts, database: readStorePath() }, id, stdout));

const tasks = program.command("tasks").description("Read the task boards kept in the store.");
tasks
  .command("boards")
  .description("One line per board, with how many tasks it holds in each state.")
  .option("--store <url>", "sqlite (default) or postgres://…")
  .action((opts: { store?: string }) => tasksBoards({ ...opts, database: readStorePath() }, stdout));
const boardOptions = (command: Command) =>
  command
    .option("--store <url>", "sqlite (default) or postgres://…")
    .option("--board <id>", "board id, or the start of one (default: the latest tasks run's board, or the only board; stepwise tasks boards lists them)");
boardOptions(tasks.command("list").description("One line per task, open work first, as the model's TaskList shows them."))
  .option("--status <status>", "only tasks with this status: pending, in_progress or completed", taskStatus)
  .option("--owner <name>", "only tasks owned by this name")
  .option("--ready", "only tasks free to start (pending, no open blockers, no owner)")
  .option("--limit <n>", `at most this many tasks (default ${TASK_LIST_DEFAULT_LIMIT})`, positiveInteger)
  .action((opts: TasksListOptions) => tasksList({ ...opts, database: readStorePath() }, stdout));
boardOptions(tasks.command("show").description("Everything about one task.").argument("<id>", "task id"))
  .action((id: string, opts: { store?: string; board?: string }) => tasksShow({ ...opts, database: readStorePath() }, id, stdout));

program
  .command("mcp")
  .description("Serve the task board and plan notebook tools over MCP (stdio, or Streamable HTTP with --http).")
  .option("--http", "serve Streamable HTTP instead of stdio", false)
  .option("--host <host>", "HTTP address; anything but loopback needs --token", "127.0.0.1")
  .option("--port <n>", "HTTP port (0: any free port)", (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError("expected a port from 0 to 65535.");
    return n;
  }, 0)
  .option("--token <token>", "bearer token HTTP clients must send (or STEPWISE_MCP_TOKEN)")
  .option("--store <url>", "task board store: sqlite (default) or postgres://…")
  .option("--board <id>", "the board every client shares", "mcp")
  .action(async (opts: { http: boolean; host: string; port: number; token?: string; store?: string; board: string }) => {
    const stop = await mcpCommand({ ...opts, database: storePath() }, stderr);
    const shutdown = () =>
      void stop().then(
        () => process.exit(0),
        (error: unknown) => {
          stderr.write(`stepwise: stopping the MCP server failed: ${error instanceof Error ? error.message : String(error)}\n`);
          process.exit(1);
        },
      );
    process.once("SIGINT", shutdown);
    process.once("SIGTERM", shutdown);
    if (!opts.http) process.stdin.once("end", shutdown);
  });

program
  .command("ui")
  .description("Serve the plan viewer: runs, their live plans and approvals, in the browser.")
  .option("-p, --port <n>", "port to listen on (0 picks a free one)", (value) => Number(value), 4780)
  .option("--host <host>", "address to listen on; anything but loopback needs --token", "127.0.0.1")
  .option("--token <token>", "token the browser must bring once as ?token=… (or STEPWISE_UI_TOKEN)")
  .option("--store <url>", "sqlite (default) or postgres://… to watch every machine's runs")
  .addOption(restateIngressOption())
  .action(async (opts: { port: number; host: string; token?: string; store?: string; restateIngress?: string }) => {
    if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new CliError("--port expects a port number from 0 to 65535");
    const token = opts.token ?? process.env["STEPWISE_UI_TOKEN"];
    const stores = await openCliStores({ database: storePath(), ...(opts.store ? { store: opts.store } : {}) });
    // A run's MCP servers are connected when the viewer resumes it (an answered question, say).
    const mcp = cliMcpConnections(storePath(), { stdout, stderr });
    const externalDrivers = opts.restateIngress ? [await restateDriverFor(opts.restateIngress)] : [];
    const runs = openRuns({
      store: stores,
      models: modelsFor,
      tools: cliTools(storePath(), mcp),
      externalDrivers,
      onWarning: (message) => stderr.write(`stepwise: ${message}\n`),
    });
    const closeRuns = async () => {
      await runs.close();
      await mcp.close();
      await stores.close();
    };
    const viewer = await startViewer({ runs, host: opts.host, port: opts.port, ...(token ? { token } : {}) }).catch(async (error: unknown) => {
      await closeRuns();
      if (error instanceof HostNeedsTokenError) throw new CliError(error.message);
      throw new CliError(`cannot serve the viewer on ${opts.host}:${opts.port}: ${error instanceof Error ? error.message : String(error)}`, exitCodeOf("failed"));
    });
    const howToOpen = token ? "open it once with ?token=<your token>; " : "";
    stdout.write(`Stepwise plan viewer: ${viewer.url}  (${howToOpen}Ctrl-C to stop)\n`);
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        stdout.write("stopping the viewer…\n");
        void viewer.close().then(closeRuns).then(resolve);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed its one line already.
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  const problem = (database !== undefined ? storeProblem(error, database) : undefined) ?? error;
  const message = problem instanceof Error ? problem.message : String(problem);
  stderr.write(`stepwise: ${boundedText(message.split("\n")[0] ?? "", 1_000)}\n`);
  process.exit(problem instanceof CliError ? problem.exitCode : problem instanceof RunInputError ? exitCodeOf("usage") : exitCodeOf("failed"));
}
