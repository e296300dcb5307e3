import type { PendingTurn } from "./approval.js";
import type { Message } from "./messages.js";
import type { Usage } from "./model.js";

export const AGENT_STATE_VERSION = 1;

/** Everything an agent needs to continue later, as plain JSON. Plugins' parts sit under their names. */
export type AgentState = {
  version: number;
  agent: string;
  memory: Message[];
  plugins: Record<string, unknown>;
  usage: Usage;
  /** Present while the agent waits for the user (see Agent.resume). */
  pending?: PendingTurn;
};

export function isAgentState(value: unknown): value is AgentState {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v["version"] === "number" &&
    Array.isArray(v["memory"]) &&
    typeof v["plugins"] === "object" &&
    v["plugins"] !== null
  );
}
