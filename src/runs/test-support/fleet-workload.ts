import { appendFileSync, readFileSync } from "node:fs";
import { z } from "zod";
import type { ModelRequest } from "../../core/model.js";
import { defineTool, type Tool } from "../../core/tool.js";
import { reactiveModel, type ScriptedModel } from "../../models/scripted.js";

/**
 * The work a fleet of workers drains, for the fleet test and benchmark: run k's task names k; each of
 * its `steps` model calls (a step) takes `latencyMs`, and all but the last call the ledger tool once,
 * which appends "k step" to a file shared by every worker process: a line twice is a call run twice.
 */
export const FLEET_TASK_PREFIX = "fleet run ";

export const fleetTask = (k: number): string => `${FLEET_TASK_PREFIX}${k}`;

/** The run's number, read off its task, and how many ledger calls its history holds (made, or interrupted by a kill). */
function progress(req: ModelRequest): { k: string; made: number } {
  const task = req.messages.find((m) => m.role === "user");
  const text = typeof task?.content === "string" ? task.content : JSON.stringify(task?.content ?? "");
  const k = new RegExp(`${FLEET_TASK_PREFIX}(\\d+)`).exec(text)?.[1] ?? "?";
  return { k, made: req.messages.filter((m) => m.role === "assistant" && m.toolCalls?.length).length };
}

export function fleetModel(steps: number, latencyMs: number): ScriptedModel {
  return reactiveModel(
    (req) => {
      const { k, made } = progress(req);
      return made < steps - 1 ? { toolCalls: [{ name: "ledger", arguments: { run: k, step: made + 1 } }] } : `run ${k} done`;
    },
    { latencyMs, id: "fleet", recordRequests: false },
  );
}

/** The ledger tool: each call appends one line ("run step worker") to `file`; `worker` names the process or driver that ran it. */
export function ledgerTool(file: string, worker: string): Tool {
  return defineTool({
    name: "ledger",
    description: "Records that this step of the run was done.",
    parameters: z.object({ run: z.string(), step: z.number().int() }),
    execute({ run, step }) {
      appendFileSync(file, `${run} ${step} ${worker}\n`);
      return `recorded step ${step}`;
    },
  });
}

export type LedgerLine = { run: string; step: number; worker: string };

export function readLedger(file: string): LedgerLine[] {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [run = "", step = "", worker = ""] = line.split(" ");
      return { run, step: Number(step), worker };
    });
}

/** Ledger lines beyond the first for the same run and step: tool calls that ran more than once. */
export function duplicateCalls(lines: readonly LedgerLine[]): number {
  return lines.length - new Set(lines.map((line) => `${line.run} ${line.step}`)).size;
}
