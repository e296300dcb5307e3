import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalDecision, ApprovalDecisions, PendingCall } from "../core/approval.js";
import type { PermissionPolicy } from "../core/permissions.js";
import type { PlanApprover } from "../planning/workflows/plan-approval.js";
import type { PlanDecision } from "../planning/workflows/plan-review.js";
import { CliError } from "./cli-error.js";

export const APPROVAL_MODES = ["none", "writes", "plan", "all"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export function parseApprovalMode(mode: string): ApprovalMode {
  if ((APPROVAL_MODES as readonly string[]).includes(mode)) return mode as ApprovalMode;
  throw new CliError(`unknown approval mode "${mode}"; use one of: ${APPROVAL_MODES.join(", ")}`);
}

/** `--approval`: which tool calls wait for the user. Questions (ask_user) always do; plans: see `approvesPlans`. */
export function approvalPolicy(mode: ApprovalMode): PermissionPolicy | undefined {
  return mode === "writes" || mode === "all" ? {} : undefined;
}

/** `--approval plan|all`: every new plan waits for the user (the notebook pauses on it, workflows ask before running it). */
export function approvesPlans(mode: ApprovalMode): boolean {
  return mode === "plan" || mode === "all";
}

/** Talks to the user in the terminal; `null` means nobody answered (input closed). */
export interface DecisionPrompter {
  ask(question: string): Promise<string | null>;
  write(text: string): void;
  /** Lets the user edit a text (in $EDITOR); returns the edited text. */
  edit(text: string): Promise<string>;
}

/** Asks about every pending call in turn; null when the user went away, so the run stays paused. */
export async function askForDecisions(pending: readonly PendingCall[], prompter: DecisionPrompter): Promise<ApprovalDecisions | null> {
  const decisions: ApprovalDecisions = {};
  for (const call of pending) {
    const decision = await askOne(call, prompter);
    if (!decision) return null;
    decisions[call.id] = decision;
  }
  return decisions;
}

async function askOne(call: PendingCall, prompter: DecisionPrompter): Promise<ApprovalDecision | null> {
  const args = prettyArguments(call.arguments);
  if (call.kind === "question") {
    const answer = await prompter.ask(`\nThe agent asks: ${questionOf(call.arguments)}\nyour answer> `);
    return answer === null ? null : { action: "answer", text: answer };
  }
  prompter.write(`\nThe agent wants to call ${call.name} with:\n${args}\n`);
  for (;;) {
    const reply = await prompter.ask("[a]pprove, [r]eject <reason>, or [e]dit? ");
    if (reply === null) return null;
    const [word = "", ...rest] = reply.trim().split(/\s+/);
    const choice = word.toLowerCase();
    if (["a", "approve", "y", "yes"].includes(choice)) return { action: "approve" };
    if (["r", "reject", "n", "no"].includes(choice)) return { action: "reject", reason: rest.join(" ") || "rejected by the user" };
    if (["e", "edit"].includes(choice)) {
      const edited = await prompter.edit(args);
      try {
        return { action: "edit", arguments: JSON.parse(edited) as unknown };
      } catch (error) {
        prompter.write(`That is not valid JSON (${error instanceof Error ? error.message : String(error)}); nothing changed.\n`);
        continue;
      }
    }
    prompter.write('Answer "a", "r <reason>" or "e".\n');
  }
}

/** Asks about a workflow's plan before it runs; null when the user went away. */
export async function askPlanDecision(plan: { task: string; steps: string[] }, prompter: DecisionPrompter): Promise<PlanDecision | null> {
  prompter.write(`\nThe planner proposes this plan for "${plan.task}":\n${plan.steps.map((s, i) => `  ${i + 1}. ${s}`).join("\n")}\n`);
  for (;;) {
    const reply = await prompter.ask("[a]pprove, [r]eject <feedback>, or [e]dit the steps? ");
    if (reply === null) return null;
    const [word = "", ...rest] = reply.trim().split(/\s+/);
    const choice = word.toLowerCase();
    if (["a", "approve", "y", "yes"].includes(choice)) return { action: "approve" };
    if (["r", "reject", "n", "no"].includes(choice)) return { action: "reject", feedback: rest.join(" ") || "rejected by the user" };
    if (["e", "edit"].includes(choice)) {
      const edited = readEditedSteps(await prompter.edit(`${plan.steps.join("\n")}\n`));
      if ("steps" in edited) return { action: "edit", steps: edited.steps };
      prompter.write(`${edited.error}; nothing changed.\n`);
      continue;
    }
    prompter.write('Answer "a", "r <feedback>" or "e".\n');
  }
}

/** Edited steps: a JSON array of strings, or one step per line (blank lines skipped). */
export function readEditedSteps(text: string): { steps: string[] } | { error: string } {
  let steps: unknown = text.split("\n");
  if (text.trim().startsWith("[")) {
    try {
      steps = JSON.parse(text);
    } catch (error) {
      return { error: `That is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
    }
    if (!Array.isArray(steps) || !steps.every((step) => typeof step === "string")) return { error: "The JSON must be an array of strings" };
  }
  const kept = (steps as string[]).map((step) => step.trim()).filter((step) => step.length > 0);
  return kept.length > 0 ? { steps: kept } : { error: "The plan needs at least one step" };
}

/**
 * Plan approval in the terminal. Without a prompter, or once input has ended, nobody can answer: a
 * workflow cannot stay paused, so the run stops before the plan runs.
 */
export function terminalPlanApprover(prompter: DecisionPrompter | undefined): PlanApprover {
  return async (plan) => {
    const decision = prompter ? await askPlanDecision(plan, prompter) : null;
    if (decision) return decision;
    throw new CliError("nobody answered whether to run the plan, so it was not run; start the run again in a terminal", 3);
  };
}

/** The question of an ask_user call; its raw arguments when the model sent something else. */
function questionOf(args: string): string {
  try {
    const { question } = JSON.parse(args) as { question?: unknown };
    if (typeof question === "string") return question;
  } catch {
    // Not JSON: show what the model sent.
  }
  return args;
}

function prettyArguments(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** Opens `$VISUAL`/`$EDITOR` (vi by default) on a temporary JSON file and returns what was saved. */
export function editInEditor(text: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-edit-"));
  const file = join(dir, "call.json");
  try {
    writeFileSync(file, text);
    const editor = env["VISUAL"] || env["EDITOR"] || "vi";
    const result = spawnSync(`${editor} "${file}"`, { stdio: "inherit", shell: true });
    if (result.status !== 0) throw new CliError(`the editor (${editor}) exited with status ${String(result.status)}`);
    return readFileSync(file, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
