import type { PendingCall } from "./approval.js";
import type { Message } from "./messages.js";
import type { Usage } from "./model.js";

/**
 * How a run ended; the run store, the CLI's exit table, the viewer and the eval use the same words.
 * "awaiting-user": calls wait for the user (`pending`), each of a kind: "approval", "question" or "plan".
 */
export type StopReason = "final" | "max-steps" | "aborted" | "awaiting-user";

export type RunResult = {
  /** The model's final answer (the last assistant text). */
  text: string;
  /** The agent's whole memory after the run. */
  messages: Message[];
  /** Model calls made in this run. */
  steps: number;
  stopReason: StopReason;
  /** Tokens summed over this run's model calls, where the model reports them. */
  usage: Usage;
  /** With stopReason "awaiting-user": the calls that wait for the user's decision. */
  pending?: PendingCall[];
};
