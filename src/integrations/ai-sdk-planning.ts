import {
  jsonSchema,
  tool as aiTool,
  type ModelMessage,
  type PrepareStepFunction,
  type PrepareStepResult,
  type StepResult,
  type SystemModelMessage,
  type Tool as AiTool,
} from "ai";
import type { AgentEventListener } from "../core/events.js";
import type { Message, ToolCall } from "../core/messages.js";
import { ToolError, type Tool, type ToolResult } from "../core/tool.js";
import { fromModelMessages, toModelMessage } from "../models/ai-sdk-messages.js";
import { PluginBridge, pluginMaker, type PluginFactory } from "./plugin-bridge.js";

/** AI SDK tools by name (the SDK's own `ToolSet` fails its own constraint under exactOptionalPropertyTypes). */
export type AiTools = Record<string, AiTool>;

/** The names of the tools Stepwise's planning plugins offer (todo list, plan notebook, task board). */
export type PlanningToolName =
  | "write_todos"
  | "create_plan"
  | "view_subtasks"
  | "update_subtask_state"
  | "finish_subtask"
  | "revise_current_plan"
  | "finish_plan"
  | "view_historical_plans"
  | "recover_historical_plan"
  | "TaskCreate"
  | "TaskGet"
  | "TaskList"
  | "TaskUpdate";

/** The planning tools as the AI SDK sees them: JSON in, the tool's text out. A plugin of your own may add others. */
export type PlanningTools = { [name in PlanningToolName]: AiTool<unknown, string> };

export interface AiSdkPlanningOptions {
  /** The name plugins see as the agent's (task owner, event stamp); default "ai-sdk-agent". */
  agentName?: string;
  /** Receives the plugins' events (plan-updated, tasks-updated, todos-updated, …). */
  onEvent?: AgentEventListener;
}

/** What `call()` merges; the rest of your settings pass through as they are. */
type StepHooks = {
  tools?: AiTools;
  system?: string;
  prepareStep?: PrepareStepFunction<any>;
  onStepFinish?: (step: StepResult<any>) => unknown;
  /** Any other setting of the call (an all-optional type would refuse settings that name none of these). */
  [setting: string]: unknown;
};

type ToolsOf<S> = S extends { tools: infer T } ? T : Record<never, never>;

/** Your call's settings with the planning merged in: your tools and theirs, your hooks around theirs. */
export type PlannedCall<S> = Omit<S, "tools" | "prepareStep" | "onStepFinish" | "system"> & {
  tools: ToolsOf<S> & PlanningTools;
  prepareStep: PrepareStepFunction<ToolsOf<S> & PlanningTools>;
  onStepFinish: (step: StepResult<ToolsOf<S> & PlanningTools>) => Promise<void>;
  system?: string;
};

/** What `agent()` merges; the rest of your settings pass through as they are. */
type AgentHooks = {
  tools?: AiTools;
  instructions?: string | SystemModelMessage | SystemModelMessage[];
  prepareStep?: PrepareStepFunction<any>;
  prepareCall?: (options: any) => any;
  experimental_context?: unknown;
  /** Any other setting of the agent. */
  [setting: string]: unknown;
};

/** `ToolLoopAgent` settings with the planning merged in; each `generate()` or `stream()` gets plugins of its own. */
export type PlannedAgent<S> = Omit<S, "tools" | "prepareStep" | "prepareCall" | "instructions"> & {
  tools: ToolsOf<S> & PlanningTools;
  prepareStep: PrepareStepFunction<ToolsOf<S> & PlanningTools>;
  prepareCall: (options: any) => Promise<any>;
  instructions?: string | SystemModelMessage | SystemModelMessage[];
};

export interface AiSdkPlanning {
  /**
   * Settings for one `generateText` or `streamText` call, with plugins of its own:
   * `generateText(planning.call({ model, tools, prompt, stopWhen }))`. Your tools, `system`,
   * `prepareStep` and `onStepFinish` are kept: yours run first, the plan is appended after what your
   * `prepareStep` returns. Make a new one for every call; one used twice is refused.
   */
  call<S extends StepHooks>(settings: S): PlannedCall<NoInfer<S>>;
  /**
   * Settings for `new ToolLoopAgent(…)`, whose every `generate()` and `stream()` gets plugins of its
   * own (made in `prepareCall`, yours run first), the plugins' instructions in `instructions`. Your
   * tools see your `experimental_context` through a stand-in of each call's own, which reads and
   * writes yours.
   */
  agent<S extends AgentHooks>(settings: S): PlannedAgent<NoInfer<S>>;
}

/**
 * Puts Stepwise planning plugins inside an AI SDK agent loop, per call: `aiSdkPlanning(() => [todoList()])`.
 * What maps: tools, `instructions`, `beforeModel` (through `prepareStep`, so tail messages are never
 * stored in the conversation), `afterTool` (through `onStepFinish`, or the next step's `prepareStep`
 * for an agent) and events (`onEvent`).
 *
 * What does not: `afterModel` never runs, because the AI SDK executes a step's tool calls as soon
 * as the model returns them, with no hook in between, so a plugin cannot refuse or rewrite a call
 * (the todo list's refusal of parallel `write_todos` calls does not happen) nor ask for one more
 * turn with `continueWith`. `rewriteMemory` never runs either: `prepareStep` can only change the
 * request of one step, not the conversation the SDK keeps.
 */
export function aiSdkPlanning(plugins: PluginFactory, opts: AiSdkPlanningOptions = {}): AiSdkPlanning {
  const agentName = opts.agentName ?? "ai-sdk-agent";
  const makePlugins = pluginMaker(plugins, "aiSdkPlanning");
  const bridgeOptions = { agentName, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) };
  const blueprint = new PluginBridge(makePlugins(), { agentName });
  const newCall = () => new CallPlanning(new PluginBridge(makePlugins(), bridgeOptions));

  const call = <S extends StepHooks>(settings: S): PlannedCall<S> => {
    const planning = newCall();
    const system = planning.bridge.systemText(settings.system);
    const prepareStep: PrepareStepFunction<AiTools> = async (options) => {
      if (options.stepNumber === 0) planning.begin(options.messages);
      const yours = (await settings.prepareStep?.(options as never)) as PrepareStepResult<AiTools> | undefined;
      return planning.withTail(options.messages, options.stepNumber, yours, system);
    };
    const onStepFinish = async (step: StepResult<AiTools>): Promise<void> => {
      await planning.showStep(step);
      await settings.onStepFinish?.(step as never);
    };
    return {
      ...settings,
      tools: mergeTools(settings.tools, planning.tools),
      prepareStep,
      onStepFinish,
      ...(system ? { system } : {}),
    } as unknown as PlannedCall<S>;
  };

  const agent = <S extends AgentHooks>(settings: S): PlannedAgent<S> => {
    const calls = new WeakMap<object, CallPlanning>();
    // The agent's own tool list names the planning tools; each call gets them bound to its plugins.
    const described = toolsOf(blueprint, () => new Error("aiSdkPlanning: a planning tool ran outside a call that planning.agent() prepared."));
    const withoutDescribed = (tools: AiTools | undefined) =>
      Object.fromEntries(Object.entries(tools ?? {}).filter(([name, tool]) => described[name] !== tool));
    const instructions = withInstructions(settings.instructions, blueprint.systemText());
    const prepareCall = async (options: Record<string, unknown>) => {
      const yours = ((await settings.prepareCall?.(options)) ?? options) as Record<string, unknown>;
      // ai 6 carries a call's context as `experimental_context`, ai 7 as `runtimeContext`.
      const key = "runtimeContext" in yours && yours["experimental_context"] === undefined ? "runtimeContext" : "experimental_context";
      const given = yours[key];
      if (given !== undefined && (typeof given !== "object" || given === null)) {
        throw new TypeError(`aiSdkPlanning: an agent's ${key} must be an object (or absent), so each call's plan can be found by it.`);
      }
      // A new identity for every call, by which its steps find its plugins; reads and writes reach yours.
      const context = new Proxy(given ?? {}, {});
      const planning = newCall();
      calls.set(context, planning);
      return { ...yours, experimental_context: context, runtimeContext: context, tools: mergeTools(withoutDescribed(yours["tools"] as AiTools | undefined), planning.tools) };
    };
    const prepareStep: PrepareStepFunction<AiTools> = async (options) => {
      const context = options.experimental_context ?? (options as { runtimeContext?: unknown }).runtimeContext;
      const planning = typeof context === "object" && context !== null ? calls.get(context) : undefined;
      if (!planning) throw new Error("aiSdkPlanning: this step belongs to no call that planning.agent() prepared; pass its settings to new ToolLoopAgent(…).");
      if (options.stepNumber === 0) planning.begin(options.messages);
      // An agent's onStepFinish cannot find its call: the plugins see a step's results before the next one.
      const previous = options.steps.at(-1);
      if (previous) await planning.showStep(previous);
      const yours = (await settings.prepareStep?.(options as never)) as PrepareStepResult<AiTools> | undefined;
      return planning.withTail(options.messages, options.stepNumber, yours, undefined);
    };
    return {
      ...settings,
      tools: mergeTools(settings.tools, described),
      prepareCall,
      prepareStep,
      ...(instructions !== undefined ? { instructions } : {}),
    } as unknown as PlannedAgent<S>;
  };

  return { call, agent };
}

/** One call's plugins, and what ties its steps together. */
class CallPlanning {
  readonly bridge: PluginBridge;
  readonly tools: AiTools;
  /** Set by the call's first step; a second first step means the settings were used for a second call. */
  #running = false;
  /** The call's first request: later steps' conversation is this plus the SDK's response messages. */
  #initial: ModelMessage[] = [];
  readonly #shown = new Set<string>();

  constructor(bridge: PluginBridge) {
    this.bridge = bridge;
    this.tools = toolsOf(bridge);
  }

  begin(messages: ModelMessage[]): void {
    if (this.#running) {
      throw new Error("aiSdkPlanning: these settings already served a call, whose plan they hold. Make new ones with planning.call(…) for every call.");
    }
    this.#running = true;
    this.bridge.startRun();
    this.#initial = messages;
  }

  /** The step's request with the plugins' tail messages appended after what your `prepareStep` returned. */
  async withTail(
    messages: ModelMessage[],
    stepNumber: number,
    yours: PrepareStepResult<AiTools> | undefined,
    system: string | undefined,
  ): Promise<PrepareStepResult<AiTools>> {
    const sent = yours?.messages ?? messages;
    const instructions = typeof yours?.system === "string" ? this.bridge.systemText(yours.system) : system;
    const memory = fromModelMessages(sent);
    const request: Message[] = [...(instructions ? [{ role: "system" as const, content: instructions }] : []), ...memory];
    const tail = await this.bridge.tailMessages(this.#context(stepNumber + 1, memory), request);
    return {
      ...yours,
      ...(typeof yours?.system === "string" && instructions ? { system: instructions } : {}),
      ...(tail.length > 0 || yours?.messages ? { messages: [...sent, ...tail.map(toModelMessage)] } : {}),
    } as PrepareStepResult<AiTools>;
  }

  /** Shows each plugin every tool result of a finished step it has not seen (`afterTool`). */
  async showStep(step: StepResult<AiTools>): Promise<void> {
    const memory = fromModelMessages([...this.#initial, ...step.response.messages]);
    const ctx = this.#context(step.stepNumber + 1, memory);
    for (const outcome of toolOutcomes(step)) {
      if (this.#shown.has(outcome.call.id)) continue;
      this.#shown.add(outcome.call.id);
      await this.bridge.afterTool(ctx, outcome.call, outcome.result, outcome.refused);
    }
  }

  #context(step: number, memory: Message[]) {
    const runId = this.bridge.runId;
    return { agentName: this.bridge.agentName, step, memory, ...(runId !== undefined ? { runId } : {}) };
  }
}

function mergeTools(yours: AiTools | undefined, planning: AiTools): AiTools {
  for (const name of Object.keys(yours ?? {})) {
    if (name in planning) throw new Error(`aiSdkPlanning: your tool "${name}" has the name of a planning tool; rename one of them.`);
  }
  return { ...(yours as AiTools | undefined), ...planning };
}

function withInstructions(
  yours: string | SystemModelMessage | SystemModelMessage[] | undefined,
  planning: string | undefined,
): string | SystemModelMessage | SystemModelMessage[] | undefined {
  if (planning === undefined) return yours;
  if (yours === undefined || typeof yours === "string") return [yours, planning].filter(Boolean).join("\n\n");
  return [...(Array.isArray(yours) ? yours : [yours]), { role: "system", content: planning }];
}

/**
 * The bridge's tools as AI SDK tools. The model sees the very JSON Schema a Stepwise agent would
 * send; `invoke` does the validating, so its forgiving repairs and its messages naming the wrong
 * argument apply here too. An error result is thrown, which the SDK hands to the model as an error
 * output. `unbound` makes tools that only describe (an agent's, whose calls get their own).
 */
function toolsOf(bridge: PluginBridge, unbound?: () => Error): AiTools {
  const tools: AiTools = {};
  for (const tool of bridge.tools) tools[tool.name] = toAiSdkTool(tool, bridge.agentName, unbound);
  return tools;
}

function toAiSdkTool(tool: Tool, agentName: string, unbound: (() => Error) | undefined) {
  return aiTool({
    description: tool.description,
    inputSchema: jsonSchema<unknown>(tool.parameters),
    async execute(input, { toolCallId, abortSignal }) {
      if (unbound) throw unbound();
      const result = await tool.invoke(input, { agentName, toolCallId, ...(abortSignal ? { signal: abortSignal } : {}) });
      if (result.isError) throw new ToolError(result.text);
      return result.text;
    },
  });
}

type ToolOutcome = { call: ToolCall; result: ToolResult; refused: boolean };

/** Each tool call of a step with its result, in call order. Calls the SDK could not run count as refused. */
function toolOutcomes(step: StepResult<AiTools>): ToolOutcome[] {
  return step.toolCalls.flatMap((call): ToolOutcome[] => {
    const toolCall: ToolCall = { id: call.toolCallId, name: call.toolName, arguments: JSON.stringify(call.input ?? {}) };
    const refused = call.invalid === true;
    const done = step.content.find(
      (part) => (part.type === "tool-result" || part.type === "tool-error") && part.toolCallId === call.toolCallId,
    );
    if (done?.type === "tool-result") {
      const text = typeof done.output === "string" ? done.output : JSON.stringify(done.output);
      return [{ call: toolCall, result: { text, isError: false }, refused }];
    }
    if (done?.type === "tool-error") {
      const text = done.error instanceof Error ? done.error.message : String(done.error);
      return [{ call: toolCall, result: { text, isError: true }, refused }];
    }
    return []; // not run in this step (awaiting approval, or executed by the provider later)
  });
}
