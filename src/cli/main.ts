#!/usr/bin/env node
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { APPROVAL_MODES } from "./approval-prompt.js";
import { CliError } from "./cli-error.js";
import { runDemo } from "./demo/demo-command.js";
import { DEMO_MODEL } from "./model-option.js";
import { runCommand } from "./run-command.js";
import { defaultDatabasePath } from "./stepwise-home.js";
import { STRATEGIES } from "./strategies.js";
import { terminalPrompter } from "./terminal-prompter.js";

const program = new Command()
  .name("stepwise")
  .description("Explicit, inspectable plans for LLM agents.")
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(`stepwise: ${text.replace(/^error: /, "")}`) });

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("expected a whole number of at least 1.");
  return n;
}

program
  .command("run")
  .description("Run an agent on a task in a workspace, showing its plan live.")
  .argument("[task]", "what the agent should do")
  .addOption(new Option("-s, --strategy <name>", "planning strategy").choices(STRATEGIES).default("notebook"))
  .option("-m, --model <spec>", `model: openai:gpt-4o-mini, anthropic:…, dashscope:…, deepseek:…, ollama:…, or ${DEMO_MODEL}`, "openai:gpt-4o-mini")
  .option("-w, --workspace <dir>", "the folder the agent may read and write", ".")
  .option("--store <url>", "task board store: sqlite (default) or postgres://…")
  .option("--board <id>", "task board id to share between runs (default: the run's id)")
  .option("--resume", "continue the last run from its saved state", false)
  .option("--max-steps <n>", "most model calls in the run", positiveInteger)
  .addOption(new Option("--approval <mode>", "which calls wait for your approval").choices(APPROVAL_MODES).default("none"))
  .action(async (task: string | undefined, opts) => {
    const prompter = terminalPrompter(process.stdin, process.stdout);
    try {
      process.exitCode = await runCommand(
        task,
        { ...opts, database: defaultDatabasePath() },
        { stdout: process.stdout, stderr: process.stderr, prompter },
      );
    } finally {
      prompter.close();
    }
  });

program
  .command("demo")
  .description("Offline demo: scripted agents plan and do a small job in a temporary workspace, one per strategy.")
  .action(async () => {
    process.exitCode = await runDemo(process.stdout, process.stderr);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // Commander has printed its one line already.
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`stepwise: ${message.split("\n")[0]}\n`);
  process.exit(error instanceof CliError ? error.exitCode : 1);
}
