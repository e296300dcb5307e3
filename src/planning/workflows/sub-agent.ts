import { Agent, type AgentOptions } from "../../core/agent.js";
import { checkpointBeforeTools } from "../../core/checkpoint-before-tools.js";
import type { PendingCall } from "../../core/approval.js";
import type { AgentEvent, EventParent } from "../../core/events.js";
import type { RunResult } from "../../core/run-result.js";
import type { AgentState } from "../../core/state.js";
import type { WorkflowRun } from "./workflow-run.js";

export type SubAgentOutcome = { text: string; isError: boolean };

/** Where a sub-agent's run hangs in the tree of runs, and where its events go. */
export type SubAgentLink = { parent: EventParent; forward(event: AgentEvent): void };

/**
 * The current step's agent, part of the workflow's progress: its state as last saved, while it runs
 * (saved before its calls run and after each turn) or once it stopped for the user (its permission
 * policy asked). `decided` once the user's decisions were handed to it: a run killed after that
 * gives up the calls it was waiting on rather than make an approved one twice.
 */
export type HeldAgent = { stepId: string; state: AgentState; decided?: true };

/**
 * A step's outcome, the calls its agent waits on (the workflow pauses on them), or `stopped`: the run
 * was stopped (aborted, or after its agent's step in flight) before the step ended, which is not done.
 */
export type StepAgentOutcome = SubAgentOutcome | { pending: PendingCall[] } | { stopped: true };

/**
 * Runs one step in a fresh agent and reports its answer. A run that stops early or fails becomes an
 * error outcome, so one broken step is reported to the workflow instead of ending it. The agent's
 * state is kept in `progress.agent` and checkpointed as it goes, as a run keeps a top-level agent's:
 * a run killed or aborted mid-step goes on from the step's last finished call (a call whose result
 * was never saved is answered as interrupted), never starting the step over and making its calls
 * again. When the agent stops for the user, its pending calls are returned; the workflow pauses, and
 * once resumed with the decisions the same agent goes on with its own resume.
 */
export async function runStepAgent<P extends { agent?: HeldAgent | undefined }, X extends object>(
  run: WorkflowRun<P, X>,
  stepId: string,
  opts: AgentOptions,
  input: string,
): Promise<StepAgentOutcome> {
  const p = run.progress;
  const keep = async () => {
    p.agent = { stepId, state: agent.saveState() };
    await run.checkpoint();
  };
  // Last among the plugins, so the checkpoint holds memory as the others left it (folded, say).
  const agent = new Agent({ ...opts, plugins: [...(opts.plugins ?? []), checkpointBeforeTools(keep, { afterTurns: true })] });
  const link = run.recorder.link(stepId);
  agent.on(link.forward);
  const held = p.agent?.stepId === stepId ? p.agent : undefined;
  const runOpts = { parent: link.parent, ...(run.signal ? { signal: run.signal } : {}), ...(run.stopAfterStep ? { stopAfterStep: run.stopAfterStep } : {}) };
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
  // A step cut short (by the abort, or its agent stopped after a turn) is not done: a resumed run goes on with its agent from the last checkpoint.
  if (run.aborted || result.stopReason === "aborted") return { stopped: true };
  delete p.agent;
  if (result.stopReason === "awaiting-user") {
    p.agent = { stepId, state: agent.saveState() };
    return { pending: result.pending ?? [] };
  }
  if (result.stopReason === "final") return { text: result.text, isError: false };
  return { text: `Stopped (${result.stopReason}) before finishing. Last words: ${result.text || "(none)"}`, isError: true };
}
