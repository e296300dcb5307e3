import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ApprovalDecision, ApprovalDecisions, PendingCall } from "../core/approval.js";
import type { PermissionPolicy } from "../core/permissions.js";
import { CliError } from "./cli-error.js";

export const APPROVAL_MODES = ["none", "writes", "plan", "all"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export function parseApprovalMode(mode: string): ApprovalMode {
  if ((APPROVAL_MODES as readonly string[]).includes(mode)) return mode as ApprovalMode;
  throw new CliError(`unknown approval mode "${mode}"; use one of: ${APPROVAL_MODES.join(", ")}`);
}

/** `--approval`: which calls wait for the user. Questions (ask_user) always do. */
export function approvalPolicy(mode: ApprovalMode): PermissionPolicy | undefined {
  switch (mode) {
    case "none":
      return undefined;
    case "writes":
      return {};
    case "plan":
      return { tools: { create_plan: "ask" }, write: "allow" };
    case "all":
      return { tools: { create_plan: "ask" } };
  }
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
    const question = (JSON.parse(call.arguments) as { question?: string }).question ?? call.arguments;
    const answer = await prompter.ask(`\nThe agent asks: ${question}\nyour answer> `);
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
