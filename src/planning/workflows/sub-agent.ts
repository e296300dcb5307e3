import { Agent, type AgentOptions } from "../../core/agent.js";
import type { PendingCall } from "../../core/approval.js";
import type { AgentEvent, EventParent } from "../../core/events.js";
import type { RunResult } from "../../core/run-result.js";
import type { AgentState } from "../../core/state.js";
import type { WorkflowRun } from "./workflow-run.js";

export type SubAgentOutcome = { text: string; isError: boolean };

/** Where a sub-agent's run hangs in the tree of runs, and where its events go. */
export type SubAgentLink = { parent: EventParent; forward(event: AgentEvent): void };

/**
 * A step's agent that stopped for the user (its permission policy asked): its saved state, part of
 * the workflow's progress. `decided` once the user's decisions were handed to it: a run killed after
 * that gives up the calls it was waiting on rather than make an approved one twice.
 */
export type HeldAgent = { stepId: string; state: AgentState; decided?: true };

/** A step's outcome, or the calls its agent waits on (the workflow pauses on them). */
export type StepAgentOutcome = SubAgentOutcome | { pending: PendingCall[] };

/**
 * Runs one step in a fresh agent and reports its answer. A run that stops early or fails becomes an
 * error outcome, so one broken step is reported to the workflow instead of ending it. When the agent
 * stops for the user, its state is kept in `progress.agent` and its pending calls returned; the
 * workflow pauses, and once resumed with the decisions the same agent goes on with its own resume.
 */
export async function runStepAgent<P extends { agent?: HeldAgent | undefined }>(
  run: WorkflowRun<P>,
  stepId: string,
  opts: AgentOptions,
  input: string,
): Promise<StepAgentOutcome> {
  const agent = new Agent(opts);
  const link = run.recorder.link(stepId);
  agent.on(link.forward);
  const p = run.progress;
  const held = p.agent?.stepId === stepId ? p.agent : undefined;
  const runOpts = { parent: link.parent, ...(run.signal ? { signal: run.signal } : {}) };
  let result: RunResult;
  try {
    if (!held) result = await agent.run(input, runOpts);
    else {
      agent.loadState(held.state);
      const decisions = run.decisions;
      if (held.decided || Object.keys(decisions).length === 0) {
        agent.abandonPending();
        result = await agent.continue(runOpts);
      } else {
        // Saved before any approved call runs: from here on a killed run does not make it again.
        held.decided = true;
        await run.checkpoint();
        result = await agent.resume(undefined, decisions, runOpts);
      }
    }
  } catch (error) {
    if (!run.aborted) delete p.agent;
    return { text: error instanceof Error ? error.message : String(error), isError: true };
  }
  // A step cut short by the abort is done again by a resumed run; a held agent goes on from where it was.
  if (run.aborted) return { text: "Stopped: the run was aborted.", isError: true };
  delete p.agent;
  if (result.stopReason === "awaiting-approval") {
    p.agent = { stepId, state: agent.saveState() };
    return { pending: result.pending ?? [] };
  }
  if (result.stopReason === "final") return { text: result.text, isError: false };
  return { text: `Stopped (${result.stopReason}) before finishing. Last words: ${result.text || "(none)"}`, isError: true };
}
