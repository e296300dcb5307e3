import type { ToolCall } from "./messages.js";
import type { ToolResult } from "./tool.js";

/** A call the run stopped for: a tool that needs approval, or a question for the user. */
export type PendingCall = ToolCall & { kind: "approval" | "question" };

/** What the user decided about one pending call. */
export type ApprovalDecision =
  | { action: "approve" }
  /** Approve with changed arguments: the call runs as edited and the model is told. */
  | { action: "edit"; arguments: unknown }
  | { action: "reject"; reason?: string }
  /** The answer to an `ask_user` question. */
  | { action: "answer"; text: string };

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
};
