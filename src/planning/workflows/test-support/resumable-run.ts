// A workflow run in its own process, for the kill -9 tests: node_modules/.bin/tsx resumable-run.ts
//   <compiler|plan-and-execute> <dir> <start|resume>
// Every tool call appends a line to <dir>/calls; every checkpoint replaces <dir>/state.json atomically;
// each step end is printed as "step-end <id>" (announced only once its checkpoint is saved). In the
// "start" phase the tool `wait` prints "waiting <name>" and never returns, so the test kills the
// process while it runs.
import { appendFileSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { ModelRequest } from "../../../core/model.js";
import { defineTool } from "../../../core/tool.js";
import { reactiveModel, type ScriptedTurn } from "../../../models/scripted.js";
import { LLMCompiler } from "../llm-compiler/llm-compiler.js";
import { PlanAndExecute } from "../plan-and-execute/plan-and-execute.js";
import type { Workflow, WorkflowState } from "../workflow.js";

const TASK = "Collect a, b and c, then combine them";
const COMPILER_PLAN = [
  '{"id": 1, "tool": "note", "args": {"name": "a"}}',
  '{"id": 2, "tool": "note", "args": {"name": "b"}}',
  '{"id": 3, "tool": "wait", "args": {"name": "c"}}',
  '{"id": 4, "tool": "note", "args": {"name": "d from $1 and $3"}}',
  '{"tool": "join"}',
].join("\n");
const STEPS = ["note a", "wait for c", "note d"];

const [kind, dir, phase] = process.argv.slice(2) as [string, string, string];
const calls = join(dir, "calls");
const stateFile = join(dir, "state.json");

const note = defineTool({
  name: "note",
  description: "Notes a name.",
  parameters: z.object({ name: z.string() }),
  execute: ({ name }) => {
    appendFileSync(calls, `note ${name}\n`);
    return `noted ${name}`;
  },
});
const wait = defineTool({
  name: "wait",
  description: "Waits for a name.",
  parameters: z.object({ name: z.string() }),
  execute: async ({ name }) => {
    appendFileSync(calls, `wait ${name}\n`);
    process.stdout.write(`waiting ${name}\n`);
    // The keep-alive timer holds the process open while the call never returns; the test kills it.
    if (phase === "start") await new Promise(() => setInterval(() => undefined, 60_000));
    return `waited for ${name}`;
  },
});

function lastText(req: ModelRequest): string {
  return req.messages.at(-1)?.content ?? "";
}

/** Answers by what the request says, so a resumed process picks up wherever the killed one stopped. */
function compilerBrain(req: ModelRequest): ScriptedTurn {
  if (lastText(req).startsWith("Decide whether")) return JSON.stringify({ action: "finish", answer: "combined a, b, c and d" });
  return COMPILER_PLAN;
}

function planAndExecuteBrain(req: ModelRequest): ScriptedTurn {
  const system = req.messages[0]?.content ?? "";
  const last = req.messages.at(-1);
  if (system.startsWith("Write a plan")) return JSON.stringify({ steps: STEPS });
  if (lastText(req).startsWith("You review a plan")) {
    const planned = lastText(req).split("Steps still planned:\n")[1] ?? "(none)";
    const remaining = planned === "(none)" ? [] : planned.split("\n").map((line) => line.replace(/^\d+\. /, ""));
    return remaining.length > 0 ? JSON.stringify({ steps: remaining }) : JSON.stringify({ answer: "all steps done" });
  }
  // An executor: one tool call for its step, then its result.
  if (last?.role === "tool") return `${last.content} (step done)`;
  const step = /Current step: (.*)$/m.exec(lastText(req))?.[1] ?? "";
  const [tool = "note", ...name] = step.split(" ");
  return { toolCalls: [{ name: tool === "wait" ? "wait" : "note", arguments: { name: name.join(" ").replace(/^for /, "") } }] };
}

const workflow: Workflow =
  kind === "compiler"
    ? new LLMCompiler({ model: reactiveModel(compilerBrain), tools: [note, wait] })
    : new PlanAndExecute({ model: reactiveModel(planAndExecuteBrain), tools: [note, wait] });

const outcome = await workflow.run(TASK, {
  ...(phase === "resume" ? { state: JSON.parse(readFileSync(stateFile, "utf8")) as WorkflowState } : {}),
  onCheckpoint: (state) => {
    writeFileSync(`${stateFile}.tmp`, JSON.stringify(state));
    renameSync(`${stateFile}.tmp`, stateFile);
  },
  onEvent: (event) => {
    if (event.type === "workflow-step-end") process.stdout.write(`step-end ${event.stepId}\n`);
  },
});
const steps = outcome.trace.steps;
process.stdout.write(`outcome ${JSON.stringify({ text: outcome.text, stopReason: outcome.stopReason, steps: steps.map((s) => s.id), results: steps.map((s) => s.result) })}\n`);
