import { z } from "zod";
import type { ToolCall } from "./messages.js";
import type { ToolResult } from "./tool.js";

/**
 * A call the run stopped for: a tool that needs approval, a question for the user, or a plan a
 * workflow proposes (its arguments hold the plan; edit it by sending the changed plan as arguments).
 */
export type PendingCall = ToolCall & { kind: "approval" | "question" | "plan" };

/** What the user decided about one pending call. */
export type ApprovalDecision =
  | { action: "approve" }
  /** Approve with changed arguments: the call runs as edited and the model is told. */
  | { action: "edit"; arguments: unknown }
  | { action: "reject"; reason?: string }
  /** The answer to an `ask_user` question. */
  | { action: "answer"; text: string };

/** An ApprovalDecision as JSON from outside the process (an HTTP body, a durable promise's payload); an edit gives an arguments object. */
export const approvalDecisionSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("approve") }),
  z.object({ action: z.literal("reject"), reason: z.string().optional() }),
  z.object({ action: z.literal("edit"), arguments: z.record(z.string(), z.unknown()) }),
  z.object({ action: z.literal("answer"), text: z.string() }),
]);

/** Decisions by call id; every pending call needs one. */
export type ApprovalDecisions = Record<string, ApprovalDecision>;

/**
 * A turn that stopped for the user: its calls in order, the results of those that already ran
 * (allowed or refused), and the ones awaiting a decision. Part of the saved state.
 */
export type PendingTurn = {
  calls: ToolCall[];
  results: Record<string, { result: ToolResult; refused: boolean }>;
  awaiting: PendingCall[];
  /** Calls of the turn whose tool paused (ToolPause), by call id: its state and which awaiting calls are its own. */
  nested?: Record<string, { state: unknown; calls: string[] }>;
};

/** The arguments an edit decision gives, as the JSON text a call carries. */
export function editedArguments(decision: Extract<ApprovalDecision, { action: "edit" }>): string {
  return typeof decision.arguments === "string" ? decision.arguments : JSON.stringify(decision.arguments);
}

/** Decisions that do not fit the calls waiting for them: the caller can correct them, and nothing was applied. */
export class DecisionsError extends Error {
  override name = "DecisionsError";
}

/**
 * Refuses (`DecisionsError`) decisions that do not answer exactly the pending calls, each with an
 * action its kind accepts. Every way of resuming checks here before anything is applied or saved.
 */
export function checkDecisions(awaiting: readonly PendingCall[], decisions: ApprovalDecisions): void {
  const missing = awaiting.filter((call) => !decisions[call.id]).map((call) => `${call.id} (${call.name})`);
  if (missing.length > 0) throw new DecisionsError(`resume needs a decision for every pending call; missing: ${missing.join(", ")}.`);
  const known = new Set(awaiting.map((call) => call.id));
  const stray = Object.keys(decisions).filter((id) => !known.has(id));
  if (stray.length > 0) throw new DecisionsError(`resume got decisions for calls that are not pending: ${stray.join(", ")}.`);
  for (const call of awaiting) {
    const action = (decisions[call.id] as ApprovalDecision).action;
    if (call.kind === "question" && action !== "answer" && action !== "reject") {
      throw new DecisionsError(`${call.id} (${call.name}) is a question for the user: answer it with { action: "answer", text } or reject it, not ${JSON.stringify(action)}.`);
    }
    if (call.kind !== "question" && action === "answer") {
      throw new DecisionsError(`${call.id} (${call.name}) needs approve, edit or reject, not an answer.`);
    }
  }
}
