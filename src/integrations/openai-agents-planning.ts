import { AsyncLocalStorage } from "node:async_hooks";
import {
  Agent,
  getDefaultModel,
  run as agentsRun,
  Runner,
  RunState,
  tool as agentsTool,
  type AgentInputItem,
  type AgentOptions,
  type AgentOutputType,
  type FunctionTool,
  type Model,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
} from "@openai/agents";
import type { AgentEventListener } from "../core/events.js";
import type { AssistantMessage, Message } from "../core/messages.js";
import type { TurnContext } from "../core/plugin.js";
import type { Tool } from "../core/tool.js";
import { fromAgentItems, toAgentInputItem } from "./openai-agents-items.js";
import { isBridgeState, PluginBridge, pluginMaker, type BridgeState, type PluginFactory } from "./plugin-bridge.js";

export interface OpenAIAgentsPlanningOptions {
  /** The name plugins see as the agent's (task owner, event stamp); default "openai-agent". */
  agentName?: string;
  /** Receives the plugins' events (plan-updated, tasks-updated, todos-updated, …). */
  onEvent?: AgentEventListener;
  /** Resolves a model given by name (default: the SDK's default provider, as `run()` uses). */
  modelProvider?: ModelProvider;
}

/** The key of the run context under which a run's planning state is kept (and so serialised with `RunState`). */
export const PLANNING_CONTEXT_KEY = "stepwise";

/** One run's planning state, as the run context keeps it. */
export type OpenAIAgentsPlanningState = BridgeState & {
  /** The tool calls whose results the plugins have seen. */
  seen: string[];
};

type AnyAgent = Agent<any, any>;

export interface OpenAIAgentsPlanning {
  /**
   * `new Agent(options)` with planning wired in: the plugins' tools added to yours, their
   * instructions appended to yours (a function of yours is called first), and the model (an instance,
   * a name, or the SDK's default) wrapped so the plan reaches every model call and the plugins judge
   * every turn.
   */
  agent<TContext = unknown, TOutput extends AgentOutputType = "text">(options: AgentOptions<TContext, TOutput>): Agent<TContext, TOutput>;
  /**
   * The SDK's `run()`, each run with plugins of its own: made new for a new input, taken from the
   * run context's `stepwise` entry when given a `RunState` (or a context that holds one). What they
   * keep is written to that entry as it changes, so `result.state.toString()` carries it to another
   * process. Two runs overlapping on one context object are refused.
   */
  run: typeof agentsRun;
}

/**
 * Gives an OpenAI Agents SDK agent Stepwise planning:
 * `const planning = openAIAgentsPlanning(() => [todoList()]); const agent = planning.agent({ name, instructions,
 * model, tools }); await planning.run(agent, input)`. What maps: tools (run through Stepwise's `invoke`,
 * so bad arguments come back naming the argument), instructions, `beforeModel` (appended to the
 * request the wrapped model sends, after your `callModelInputFilter`, so never in a session or the
 * run's history), `afterTool` (every result, the agent's own tools' too, seen before the next model
 * call), `afterModel` refusals and rewrites, and events. What does not: `continueWith` (a turn
 * without calls ends the run; the SDK has no hook to send the model round again) and `rewriteMemory`
 * (context folding changes one request, not the run's history).
 */
export function openAIAgentsPlanning(plugins: PluginFactory, opts: OpenAIAgentsPlanningOptions = {}): OpenAIAgentsPlanning {
  const agentName = opts.agentName ?? "openai-agent";
  const makePlugins = pluginMaker(plugins, "openAIAgentsPlanning");
  const bridgeOptions = { agentName, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) };
  const blueprint = new PluginBridge(makePlugins(), { agentName });
  const current = new AsyncLocalStorage<RunPlanning>();
  const busy = new WeakSet<object>();

  const inRun = (what: string): RunPlanning => {
    const planning = current.getStore();
    if (!planning) {
      throw new Error(`openAIAgentsPlanning: ${what} outside planning.run(). Start the agent with planning.run(agent, input, options), so each run has its own plan.`);
    }
    return planning;
  };

  const agent = <TContext, TOutput extends AgentOutputType>(options: AgentOptions<TContext, TOutput>): Agent<TContext, TOutput> => {
    const own = options.instructions;
    const instructions: AgentOptions<TContext, TOutput>["instructions"] =
      typeof own === "function" ? async (runContext, self) => blueprint.systemText(await own(runContext, self)) ?? "" : (blueprint.systemText(own) ?? "");
    const tools = blueprint.tools.map((tool) => toAgentsTool(tool, () => inRun(`the tool ${tool.name} ran`)));
    return new Agent<TContext, TOutput>({
      ...options,
      instructions,
      tools: [...(options.tools ?? []), ...tools],
      model: planningModel(options.model, opts.modelProvider, () => inRun("the agent's model was called")),
    });
  };

  const run = (async (startingAgent: AnyAgent, input: string | AgentInputItem[] | RunState<unknown, AnyAgent>, options?: { context?: unknown; stream?: boolean }) => {
    const resuming = input instanceof RunState;
    const context = (resuming ? input._context.context : (options?.context ?? {})) as Record<string, unknown>;
    if (typeof context !== "object" || context === null) throw new TypeError("openAIAgentsPlanning: the run context must be an object, where the run's plan is kept.");
    if (busy.has(context)) {
      throw new Error("openAIAgentsPlanning: another run is using this context object, and its plan lives there. Give each run its own context object.");
    }
    const saved = context[PLANNING_CONTEXT_KEY];
    const state = isPlanningState(saved) ? saved : undefined;
    const bridge = new PluginBridge(makePlugins(), { ...bridgeOptions, state });
    if (!resuming) bridge.startRun();
    const planning = new RunPlanning(bridge, context, state?.seen ?? []);
    planning.persist();
    busy.add(context);
    const release = () => busy.delete(context);
    try {
      const result = (await current.run(planning, () => agentsRun(startingAgent, input as never, { ...options, context } as never))) as { completed?: Promise<void> };
      // A streamed run goes on after it is returned; its context stays taken until it completes.
      if (options?.stream && result.completed) void result.completed.then(release, release);
      else release();
      return result;
    } catch (error) {
      release();
      throw error;
    }
  }) as typeof agentsRun;

  return { agent, run };
}

function isPlanningState(value: unknown): value is OpenAIAgentsPlanningState {
  return isBridgeState(value) && Array.isArray((value as Partial<OpenAIAgentsPlanningState>).seen);
}

/** One run's plugins, and what ties the SDK's hooks together for it. */
class RunPlanning {
  readonly bridge: PluginBridge;
  readonly #context: Record<string, unknown>;
  /** Refusals decided after the model answered, by call id, waiting for the call's execution. */
  readonly refusals = new Map<string, string>();
  /** Plugin tool calls that came back as errors (the SDK keeps only the text). */
  readonly failed = new Set<string>();
  readonly #seen: Set<string>;
  step = 0;
  memory: Message[] = [];

  constructor(bridge: PluginBridge, context: Record<string, unknown>, seen: readonly string[]) {
    this.bridge = bridge;
    this.#context = context;
    this.#seen = new Set(seen);
  }

  context(): TurnContext {
    const runId = this.bridge.runId;
    return { agentName: this.bridge.agentName, step: this.step, memory: this.memory, ...(runId !== undefined ? { runId } : {}) };
  }

  /** Writes the plugins' state into the run context, which `RunState` serialises. */
  persist(): void {
    const state: OpenAIAgentsPlanningState = { ...this.bridge.save(), seen: [...this.#seen] };
    this.#context[PLANNING_CONTEXT_KEY] = state;
  }

  /** Before a model call: shows the plugins the results they have not seen, and returns the request with the tail appended. */
  async prepare(request: ModelRequest): Promise<ModelRequest> {
    this.step++;
    const items: AgentInputItem[] = typeof request.input === "string" ? [{ role: "user", content: request.input }] : request.input;
    this.memory = fromAgentItems(items);
    for (const [index, message] of this.memory.entries()) {
      if (message.role !== "tool" || this.#seen.has(message.toolCallId)) continue;
      this.#seen.add(message.toolCallId);
      const call = callBefore(this.memory, index, message.toolCallId);
      const refused = this.refusals.delete(message.toolCallId);
      const isError = this.failed.delete(message.toolCallId) || refused;
      if (call) await this.bridge.afterTool(this.context(), call, { text: message.content, isError }, refused);
    }
    const system = request.systemInstructions;
    const full: Message[] = [...(system ? [{ role: "system" as const, content: system }] : []), ...this.memory];
    const tail = await this.bridge.tailMessages(this.context(), full);
    this.persist();
    return tail.length > 0 ? { ...request, input: [...items, ...tail.map(toAgentInputItem)] } : request;
  }

  /** After a model call: the plugins judge its calls in place; refusals wait for the calls' execution. */
  async judge(output: ModelResponse["output"]): Promise<void> {
    const calls = output.flatMap((item) => (item.type === "function_call" ? [item] : []));
    if (calls.length === 0) return;
    const message: AssistantMessage = {
      role: "assistant",
      content: "",
      toolCalls: calls.map((call) => ({ id: call.callId, name: call.name, arguments: call.arguments })),
    };
    const decisions = await this.bridge.afterModel(this.context(), message);
    for (const [index, call] of calls.entries()) {
      const decided = decisions.calls[index];
      if (decided) Object.assign(call, { name: decided.name, arguments: decided.arguments });
      const reason = decisions.refusals.get(call.callId);
      if (reason !== undefined) this.refusals.set(call.callId, reason);
    }
    this.persist();
  }
}

/**
 * The agent's model with the run's plugins around each call. A name (or none: the SDK's default)
 * is resolved as `run()` would, through the default model provider, unless one is given.
 */
function planningModel(model: string | Model | undefined, provider: ModelProvider | undefined, planning: () => RunPlanning): Model {
  let resolved: Promise<Model> | undefined;
  const inner = (): Promise<Model> => {
    if (typeof model === "object") return Promise.resolve(model);
    resolved ??= Promise.resolve((provider ?? new Runner().config.modelProvider).getModel(model || getDefaultModel()));
    return resolved;
  };
  return {
    async getResponse(request: ModelRequest) {
      const run = planning();
      const response = await (await inner()).getResponse(await run.prepare(request));
      await run.judge(response.output);
      return response;
    },
    async *getStreamedResponse(request: ModelRequest) {
      const run = planning();
      const prepared = await run.prepare(request);
      for await (const event of (await inner()).getStreamedResponse(prepared)) {
        if (event.type === "response_done") await run.judge(event.response.output);
        yield event;
      }
    },
  };
}

function callBefore(memory: readonly Message[], index: number, callId: string) {
  for (let i = index - 1; i >= 0; i--) {
    const message = memory[i];
    const call = message?.role === "assistant" ? message.toolCalls?.find((c) => c.id === callId) : undefined;
    if (call) return call;
  }
  return undefined;
}

/** The model sees the very JSON Schema a Stepwise agent would send; Stepwise's `invoke` validates, on the run's own plugins. */
function toAgentsTool(tool: Tool, planning: () => RunPlanning): FunctionTool {
  return agentsTool({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters as never,
    strict: false,
    async execute(input, _runContext, details) {
      const run = planning();
      const toolCallId = details?.toolCall?.callId;
      const refusal = toolCallId !== undefined ? run.refusals.get(toolCallId) : undefined;
      if (refusal !== undefined) return refusal;
      const own = run.bridge.tools.find((t) => t.name === tool.name) as Tool;
      const result = await own.invoke(input, { agentName: run.bridge.agentName, ...(toolCallId ? { toolCallId } : {}) });
      if (result.isError && toolCallId !== undefined) run.failed.add(toolCallId);
      run.persist();
      return result.text;
    },
  }) as unknown as FunctionTool;
}
