import type { Plugin } from "./plugin.js";

/**
 * Saves the run's checkpoint once the model has asked for tool calls and before any of them runs,
 * so memory records every call that may take effect: a run killed mid-turn resumes with those calls
 * marked interrupted instead of asking the model again and running them twice. A refused save (the
 * lease was taken over) throws, and the calls never run.
 *
 * With `afterTurns`, it also saves before each model call, and so after every finished turn, with
 * the turn's results: for an agent whose turns nobody else checkpoints (a workflow step's executor),
 * so a killed run goes on from its last finished call instead of starting the step over.
 */
export function checkpointBeforeTools(save: () => Promise<void>, opts: { afterTurns?: boolean } = {}): Plugin {
  return {
    name: "run-checkpoint",
    ...(opts.afterTurns ? { beforeModel: async () => void (await save()) } : {}),
    async afterModel(ctx) {
      if (ctx.toolCalls.length > 0) await save();
    },
  };
}
