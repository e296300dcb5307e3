import { randomUUID } from "node:crypto";
import { TerminalError, type RunOptions } from "@restatedev/restate-sdk";
import type { ChatModel, ModelRequest, ModelResponse } from "../../core/model.js";
import type { Tool, ToolResult } from "../../core/tool.js";
import { ModelError } from "../../models/model-error.js";
import type { JournalSteps } from "./journal-steps.js";

/**
 * The time as the journal has it: when the run started, then when each model answered. A replay
 * reads the same times back, so what a plugin stamps with it (a plan's creation, a finished subtask)
 * comes out the same. It moves only at model answers, which an agent takes one at a time.
 */
export class JournalClock {
  #ms: number;

  constructor(startMs: number) {
    this.#ms = startMs;
  }

  now(): Date {
    return new Date(this.#ms);
  }

  advanceTo(ms: number): void {
    this.#ms = Math.max(this.#ms, ms);
  }
}

export type JournaledModelOptions = {
  /** Restate's retry policy for a model call. */
  retry?: RunOptions<{ response: ModelResponse; at: number }>;
  /** Set to the time each answer came, as journaled. */
  clock?: JournalClock;
};

/**
 * The model, each call a journaled step (`ctx.run`): a replay of the invocation takes the answer from
 * the journal instead of asking the model again. It does not stream — deltas would be lost on a
 * replay — so every strategy gets the whole answer at once.
 */
export function journaledModel(steps: JournalSteps, model: ChatModel, opts: JournaledModelOptions = {}): ChatModel {
  return {
    id: model.id,
    async generate(request: ModelRequest) {
      const { response, at } = await steps.run(
        `model ${model.id}`,
        async () => {
          try {
            return { response: withCallIds(await model.generate(request)), at: Date.now() };
          } catch (error) {
            // A failure the adapter calls permanent (a bad request, a wrong key) is not retried by Restate either.
            if (error instanceof ModelError && !error.retryable) throw new TerminalError(error.message);
            throw error;
          }
        },
        opts.retry ?? {},
      );
      opts.clock?.advanceTo(at);
      return response;
    },
  };
}

/**
 * Gives every tool call an id inside the journaled step: the agent would otherwise draw a random one
 * for a call without, a different one on every replay, and the run's log would disagree with itself.
 */
function withCallIds(response: ModelResponse): ModelResponse {
  const calls = response.message.toolCalls;
  if (!calls?.some((call) => typeof call.id !== "string" || call.id.length === 0)) return response;
  const toolCalls = calls.map((call) => (typeof call.id === "string" && call.id.length > 0 ? call : { ...call, id: `call_${randomUUID().slice(0, 13)}` }));
  return { ...response, message: { ...response.message, toolCalls } };
}

/**
 * The tool, each call a journaled step: a replay takes the result from the journal, so a call whose
 * result was journaled is never made again. (One still running when its process died is made again:
 * Restate's steps run at least once, and only their results are kept.)
 */
export function journaledTool(steps: JournalSteps, tool: Tool): Tool {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    readOnly: tool.readOnly,
    ...(tool.schema ? { schema: tool.schema } : {}),
    ...(tool.requiresApproval ? { requiresApproval: true } : {}),
    ...(tool.interactive ? { interactive: true } : {}),
    ...(tool.explainsEdits ? { explainsEdits: true } : {}),
    // Checking arguments is pure: it runs again on a replay, as the agent's own code does.
    ...(tool.check ? { check: tool.check.bind(tool) } : {}),
    invoke: (args, toolContext) => steps.run<ToolResult>(`tool ${tool.name}`, () => tool.invoke(args, toolContext)),
  };
}
