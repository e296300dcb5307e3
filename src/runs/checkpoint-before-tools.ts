import type { Plugin } from "../core/plugin.js";

/**
 * Saves the run's checkpoint once the model has asked for tool calls and before any of them runs,
 * so memory records every call that may take effect: a run killed mid-turn resumes with those calls
 * marked interrupted instead of asking the model again and running them twice. A refused save (the
 * lease was taken over) throws, and the calls never run.
 */
export function checkpointBeforeTools(save: () => Promise<void>): Plugin {
  return {
    name: "run-checkpoint",
    async afterModel(ctx) {
      if (ctx.toolCalls.length > 0) await save();
    },
  };
}
