import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalDecision, ApprovalDecisions, PendingCall } from "../core/approval.js";
import { boundedText } from "../core/bounded-quote.js";
import type { PlanDecision } from "../planning/workflows/plan-review.js";
import { CliError } from "./cli-error.js";
import { printableLine } from "./terminal-text.js";

/** Talks to the user in the terminal; `null` means nobody answered (input closed). */
export interface DecisionPrompter {
  ask(question: string): Promise<string | null>;
  write(text: string): void;
  /** Lets the user edit a text (in $EDITOR, or typed as one line); `what` names it for the one-line prompt. */
  edit(text: string, what: string): Promise<string | null>;
}

/** A plan a workflow wants to run. */
/** A plan put to the user; `problem` says why they are asked again (their last edit could not run). */
export type PlanProposal = { task: string; steps: string[]; problem?: string };

/**
 * Whoever decides what waits for the user: the person at the terminal, or decisions given up front
 * (`--decisions`, `--approve-all`). `null`: no decision, so the run stays paused, state saved.
 */
export interface Approver {
  decideCall(call: PendingCall): Promise<ApprovalDecision | null>;
  decidePlan(plan: PlanProposal): Promise<PlanDecision | null>;
}

/** The user at the terminal decides, asked through the prompter. */
export function promptingApprover(prompter: DecisionPrompter): Approver {
  return { decideCall: (call) => askOne(call, prompter), decidePlan: (plan) => askPlanDecision(plan, prompter) };
}

/** Decides every pending call in turn; null when there is no decision for one, so the run stays paused. */
export async function askForDecisions(pending: readonly PendingCall[], approver: Approver): Promise<ApprovalDecisions | null> {
  const decisions: ApprovalDecisions = {};
  for (const call of pending) {
    // A plan waiting for approval (a workflow's, or the plan tool's once planned) is decided as a plan.
    const plan = proposedPlan(call);
    const decision = plan ? planApproval(plan, await approver.decidePlan(plan)) : await approver.decideCall(call);
    if (!decision) return null;
    decisions[call.id] = decision;
  }
  return decisions;
}

/** What the user types to decline a tool's question. */
const DECLINE = "/decline";

/**
 * How much of what the model or a server wrote a prompt shows (the terminal makes it printable): a
 * question, a call's arguments, a plan's task, each of its steps, and how many steps. Names are shorter.
 */
const SHOWN = { question: 4_000, arguments: 4_000, name: 100, task: 300, step: 1_000, steps: 100, problem: 1_000 } as const;

/** A call's arguments as the prompt shows them; when cut, where to see them whole. */
function shownArguments(args: string): string {
  const shown = boundedText(args, SHOWN.arguments);
  return shown === args ? args : `${shown}\n(to see them all, answer "e": the whole arguments open for editing)`;
}

async function askOne(call: PendingCall, prompter: DecisionPrompter): Promise<ApprovalDecision | null> {
  const args = prettyArguments(call.arguments);
  const question = () => boundedText(questionOf(call.arguments), SHOWN.question);
  if (call.kind === "question" && askerOf(call.arguments) !== undefined) {
    // A tool's question from inside its call (an MCP server's form): the text says who asks; declining is an answer too.
    const answer = await prompter.ask(`\n${question()}\nyour answer (or ${DECLINE}) > `);
    if (answer === null) return null;
    return answer.trim() === DECLINE ? { action: "reject", reason: "the user declined to answer" } : { action: "answer", text: answer };
  }
  if (call.kind === "question") {
    const answer = await prompter.ask(`\nThe agent asks: ${question()}\nyour answer> `);
    return answer === null ? null : { action: "answer", text: answer };
  }
  prompter.write(`\nThe agent wants to call ${printableLine(boundedText(call.name, SHOWN.name))} with:\n${shownArguments(args)}\n`);
  for (;;) {
    const reply = await prompter.ask("[a]pprove, [r]eject <reason>, or [e]dit? ");
    if (reply === null) return null;
    const [word = "", ...rest] = reply.trim().split(/\s+/);
    const choice = word.toLowerCase();
    if (["a", "approve", "y", "yes"].includes(choice)) return { action: "approve" };
    if (["r", "reject", "n", "no"].includes(choice)) return { action: "reject", reason: rest.join(" ") || "rejected by the user" };
    if (["e", "edit"].includes(choice)) {
      const edited = await prompter.edit(args, "the edited arguments, as one JSON object");
      if (edited === null) return null;
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
export async function askPlanDecision(plan: PlanProposal, prompter: DecisionPrompter): Promise<PlanDecision | null> {
  if (plan.problem) prompter.write(`\n${boundedText(plan.problem, SHOWN.problem)}\n`);
  // One line per step, whatever a step holds: a line end inside one must not pass for the next step.
  const steps = plan.steps.slice(0, SHOWN.steps).map((step, i) => `  ${i + 1}. ${printableLine(boundedText(step, SHOWN.step))}`);
  if (plan.steps.length > SHOWN.steps) steps.push(`  … and ${plan.steps.length - SHOWN.steps} more steps (answer "e" to see them all)`);
  prompter.write(`\nThe planner proposes this plan for "${printableLine(boundedText(plan.task, SHOWN.task))}":\n${steps.join("\n")}\n`);
  for (;;) {
    const reply = await prompter.ask("[a]pprove, [r]eject <feedback>, or [e]dit the steps? ");
    if (reply === null) return null;
    const [word = "", ...rest] = reply.trim().split(/\s+/);
    const choice = word.toLowerCase();
    if (["a", "approve", "y", "yes"].includes(choice)) return { action: "approve" };
    if (["r", "reject", "n", "no"].includes(choice)) return { action: "reject", feedback: rest.join(" ") || "rejected by the user" };
    if (["e", "edit"].includes(choice)) {
      const text = await prompter.edit(`${plan.steps.join("\n")}\n`, "the edited steps, as one JSON array of strings");
      if (text === null) return null;
      const edited = readEditedSteps(text);
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
 * The plan a call puts to the user: a workflow's plan (kind "plan"), or the plan tool's call once its
 * planner has filled in the steps. Both carry `{ task, steps }`.
 */
function proposedPlan(call: PendingCall): PlanProposal | undefined {
  if (call.kind !== "plan" && call.name !== "plan") return undefined;
  try {
    const { task, steps, problem } = JSON.parse(call.arguments) as { task?: unknown; steps?: unknown; problem?: unknown };
    if (typeof task === "string" && Array.isArray(steps) && steps.every((step) => typeof step === "string")) {
      return { task, steps: steps as string[], ...(typeof problem === "string" ? { problem } : {}) };
    }
  } catch {
    // Not a plan after all: asked about as any other call.
  }
  return undefined;
}

/** The answer about a plan as the decision the paused run takes; an edit keeps the task. */
function planApproval(plan: PlanProposal, decision: PlanDecision | null): ApprovalDecision | null {
  if (!decision) return null;
  if (decision.action === "approve") return { action: "approve" };
  if (decision.action === "reject") return { action: "reject", reason: decision.feedback };
  return { action: "edit", arguments: { task: plan.task, steps: decision.steps } };
}

/** The question of an ask_user call; its raw arguments when the model sent something else. */
/** Who asks a question a tool put while its call waits (`asker`, see ToolPause); absent for the agent's own ask_user. */
function askerOf(args: string): string | undefined {
  try {
    const { asker } = JSON.parse(args) as { asker?: unknown };
    return typeof asker === "string" ? asker : undefined;
  } catch {
    return undefined;
  }
}

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

/** The editor the user chose (`$VISUAL`, then `$EDITOR`), or undefined. */
export function chosenEditor(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env["VISUAL"] || env["EDITOR"] || undefined;
}

/** Opens the editor on a temporary file holding `text` and returns what was saved. */
export function editInEditor(text: string, editor: string): string {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-edit-"));
  const file = join(dir, "call.json");
  try {
    writeFileSync(file, text);
    const result = spawnSync(`${editor} "${file}"`, { stdio: "inherit", shell: true });
    if (result.status !== 0) throw new CliError(`the editor (${editor}) exited with status ${String(result.status)}`);
    return readFileSync(file, "utf8");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
