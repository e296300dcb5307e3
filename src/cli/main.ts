#!/usr/bin/env node
import { Command, CommanderError } from "commander";
import { runDemo } from "./demo.js";

const program = new Command()
  .name("stepwise")
  .description("Explicit, inspectable plans for LLM agents.")
  .showHelpAfterError(false)
  .exitOverride();

program
  .command("demo")
  .description("Run the offline demo: a scripted agent plans and works with tools; no key, no network.")
  .action(async () => {
    await runDemo(process.stdout);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) process.exit(0);
    // Commander already printed its one-line reason.
    process.exit(2);
  }
  process.stderr.write(`stepwise: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
