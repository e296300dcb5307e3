import { Agent, type AgentOptions } from "../../core/agent.js";
import type { AgentEvent, EventParent } from "../../core/events.js";

export type SubAgentOutcome = { text: string; isError: boolean };

/** Where a sub-agent's run hangs in the tree of runs, and where its events go. */
export type SubAgentLink = { parent: EventParent; forward(event: AgentEvent): void };

/**
 * Runs one step in a fresh agent and reports its answer. A run that stops early or fails becomes an
 * error outcome, so one broken step is reported to the workflow instead of ending it.
 */
export async function runSubAgent(
  opts: AgentOptions,
  input: string,
  signal: AbortSignal | undefined,
  link: SubAgentLink,
): Promise<SubAgentOutcome> {
  // A step's run cannot pause for the user: its tools' questions go unasked (an MCP server hears "cancel").
  const agent = new Agent({ ...opts, toolQuestions: false });
  agent.on(link.forward);
  try {
    const result = await agent.run(input, { parent: link.parent, ...(signal ? { signal } : {}) });
    if (result.stopReason === "final") return { text: result.text, isError: false };
    return { text: `Stopped (${result.stopReason}) before finishing. Last words: ${result.text || "(none)"}`, isError: true };
  } catch (error) {
    return { text: error instanceof Error ? error.message : String(error), isError: true };
  }
}
