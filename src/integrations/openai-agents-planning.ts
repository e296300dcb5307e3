import { tool as agentsTool, type CallModelInputFilter, type FunctionTool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import type { AgentEventListener } from "../core/events.js";
import type { AssistantMessage, Message } from "../core/messages.js";
import type { Plugin, TurnContext } from "../core/plugin.js";
import type { Tool } from "../core/tool.js";
import { fromAgentItems, toAgentInputItem } from "./openai-agents-items.js";
import { PluginBridge } from "./plugin-bridge.js";

export interface OpenAIAgentsPlanningOptions {
  /** The name plugins see as the agent's (task owner, event stamp); default "openai-agent". */
  agentName?: string;
  /** Receives the plugins' events (plan-updated, tasks-updated, todos-updated, …). */
  onEvent?: AgentEventListener;
}

export interface OpenAIAgentsPlanning {
  /** The plugins' tools, for `new Agent({ tools: [...yours, ...planning.tools] })`. */
  readonly tools: FunctionTool[];
  /** The plugins' instructions, to append to the agent's own. */
  readonly instructions: string | undefined;
  /** For `run(agent, input, { callModelInputFilter })`: appends the tail hint to each model call, never stored. */
  readonly callModelInputFilter: CallModelInputFilter;
  /**
   * Wraps the agent's model so the plugins' after-model rules apply: a refused call of a plugin tool
   * (parallel `write_todos`) is answered with the refusal instead of running, a rewritten call runs as
   * rewritten. Without it, those rules do not run.
   */
  model(inner: Model): Model;
}

/**
 * Gives an OpenAI Agents SDK agent Stepwise planning. What maps: tools (run through Stepwise's
 * `invoke`, so bad arguments come back naming the argument), instructions, `beforeModel` through the
 * run's `callModelInputFilter`, `afterTool` (every result, the agent's own tools' too, seen before the
 * next model call), `afterModel` refusals and rewrites through `model()`, and `attach` events.
 * What does not: `continueWith` (a turn without calls ends the run; the SDK has no hook to send the
 * model round again) and `rewriteMemory` (context folding: the filter changes one request, not the
 * run's history). One bundle serves one run at a time, as the plugins hold one plan.
 */
export function openAIAgentsPlanning(plugins: readonly Plugin[], opts: OpenAIAgentsPlanningOptions = {}): OpenAIAgentsPlanning {
  const agentName = opts.agentName ?? "openai-agent";
  const bridge = new PluginBridge(plugins, { agentName, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) });
  /** Refusals decided after the model answered, by call id, waiting for the call's execution. */
  const refusals = new Map<string, string>();
  /** Plugin tool calls that came back as errors (the SDK keeps only the text). */
  const failed = new Set<string>();
  /** Calls whose results the plugins have seen. */
  const seen = new Set<string>();
  let step = 0;
  let memory: Message[] = [];
  const context = (): TurnContext => ({ agentName, step, memory });

  const callModelInputFilter: CallModelInputFilter = async ({ modelData }) => {
    step++;
    memory = fromAgentItems(modelData.input);
    for (const [index, message] of memory.entries()) {
      if (message.role !== "tool" || seen.has(message.toolCallId)) continue;
      seen.add(message.toolCallId);
      const call = callBefore(memory, index, message.toolCallId);
      const refused = refusals.delete(message.toolCallId);
      const isError = failed.delete(message.toolCallId) || refused;
      if (call) await bridge.afterTool(context(), call, { text: message.content, isError }, refused);
    }
    const instructions = bridge.systemText(modelData.instructions);
    const request: Message[] = [...(instructions ? [{ role: "system" as const, content: instructions }] : []), ...memory];
    const tail = await bridge.tailMessages(context(), request);
    return {
      input: [...modelData.input, ...tail.map(toAgentInputItem)],
      ...(modelData.instructions !== undefined ? { instructions: modelData.instructions } : {}),
    };
  };

  /** Lets the plugins judge the calls of a response, in place: refusals wait for execution, rewrites apply. */
  const judge = async (response: ModelResponse): Promise<ModelResponse> => {
    const calls = response.output.flatMap((item) => (item.type === "function_call" ? [item] : []));
    if (calls.length === 0) return response;
    const message: AssistantMessage = {
      role: "assistant",
      content: "",
      toolCalls: calls.map((call) => ({ id: call.callId, name: call.name, arguments: call.arguments })),
    };
    const decisions = await bridge.afterModel(context(), message);
    for (const [index, call] of calls.entries()) {
      const decided = decisions.calls[index];
      if (decided) Object.assign(call, { name: decided.name, arguments: decided.arguments });
      const reason = decisions.refusals.get(call.callId);
      if (reason !== undefined) refusals.set(call.callId, reason);
    }
    return response;
  };

  const model = (inner: Model): Model => ({
    getResponse: async (request: ModelRequest) => judge(await inner.getResponse(request)),
    async *getStreamedResponse(request: ModelRequest) {
      for await (const event of inner.getStreamedResponse(request)) {
        if (event.type === "response_done") await judge({ usage: event.response.usage as ModelResponse["usage"], output: event.response.output });
        yield event;
      }
    },
  });

  const tools = bridge.tools.map((tool) => toAgentsTool(tool, agentName, refusals, failed));
  return { tools, instructions: bridge.systemText(), callModelInputFilter, model };
}

function callBefore(memory: readonly Message[], index: number, callId: string) {
  for (let i = index - 1; i >= 0; i--) {
    const message = memory[i];
    const call = message?.role === "assistant" ? message.toolCalls?.find((c) => c.id === callId) : undefined;
    if (call) return call;
  }
  return undefined;
}

/** The model sees the very JSON Schema a Stepwise agent would send; Stepwise's `invoke` validates. */
function toAgentsTool(tool: Tool, agentName: string, refusals: ReadonlyMap<string, string>, failed: Set<string>): FunctionTool {
  return agentsTool({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as never,
    strict: false,
    async execute(input, _runContext, details) {
      const toolCallId = details?.toolCall?.callId;
      const refusal = toolCallId !== undefined ? refusals.get(toolCallId) : undefined;
      if (refusal !== undefined) return refusal;
      const result = await tool.invoke(input, { agentName, ...(toolCallId ? { toolCallId } : {}) });
      if (result.isError && toolCallId !== undefined) failed.add(toolCallId);
      return result.text;
    },
  }) as unknown as FunctionTool;
}
