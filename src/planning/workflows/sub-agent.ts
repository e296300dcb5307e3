import { Agent, type AgentOptions } from "../../core/agent.js";

export type SubAgentOutcome = { text: string; isError: boolean };

/**
 * Runs one step in a fresh agent and reports its answer. A run that stops early or fails becomes an
 * error outcome, so one broken step is reported to the workflow instead of ending it.
 */
export async function runSubAgent(opts: AgentOptions, input: string, signal: AbortSignal | undefined): Promise<SubAgentOutcome> {
  try {
    const result = await new Agent(opts).run(input, signal ? { signal } : {});
    if (result.stopReason === "final") return { text: result.text, isError: false };
    return { text: `Stopped (${result.stopReason}) before finishing. Last words: ${result.text || "(none)"}`, isError: true };
  } catch (error) {
    return { text: error instanceof Error ? error.message : String(error), isError: true };
  }
}
