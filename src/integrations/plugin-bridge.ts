import { randomUUID } from "node:crypto";
import { EventHub, stampEvent, type AgentEventListener, type EventScope } from "../core/events.js";
import type { AssistantMessage, Message, ToolCall } from "../core/messages.js";
import type { Plugin, PluginHost, TurnContext } from "../core/plugin.js";
import { loadPluginStates, savePluginStates, type PluginStates } from "../core/plugin-states.js";
import type { Tool, ToolResult } from "../core/tool.js";
import { decideTurn, type TurnDecisions } from "../core/turn-decisions.js";

/**
 * Makes the planning plugins of one thread (LangChain), run (OpenAI Agents) or call (AI SDK):
 * `() => [todoList()]`. An adapter calls it for each of them, so no two share a plan.
 */
export type PluginFactory = () => readonly Plugin[];

export const BRIDGE_STATE_VERSION = 1;

/** What an adapter keeps in the host framework's own state for one thread or run: plain JSON. */
export type BridgeState = {
  version: number;
  /** Each plugin's saved state, under its name. */
  plugins: PluginStates;
  /** The plugins that already had their one `continueWith` of the current run, by name. */
  continued: string[];
  /** The host framework's run in progress, which the plugins' events carry. */
  runId?: string | undefined;
};

export interface PluginBridgeOptions {
  /** The name plugins see as the agent's (task owner, event stamp). */
  agentName: string;
  /** Receives the plugins' events (plan-updated, tasks-updated, todos-updated, …). */
  onEvent?: AgentEventListener;
  /** The thread's or run's state to continue from (what `save()` returned); absent for a new one. */
  state?: BridgeState | undefined;
}

/**
 * `factory` checked on each call: it must make new plugins, since a plugin object handed out twice
 * would carry one thread's plan into another.
 */
export function pluginMaker(factory: PluginFactory, adapter: string): () => readonly Plugin[] {
  if (typeof factory !== "function") {
    throw new TypeError(
      `${adapter} takes a function that makes the plugins, such as () => [todoList()], so that each thread gets its own; ` +
        "plugin objects made once would share one plan between every thread.",
    );
  }
  const handedOut = new WeakSet<Plugin>();
  return () => {
    const plugins = factory();
    if (!Array.isArray(plugins)) throw new TypeError(`${adapter}: the plugin function must return an array of plugins, such as [todoList()].`);
    for (const plugin of plugins) {
      if (handedOut.has(plugin)) {
        throw new Error(
          `${adapter}: the plugin function returned the plugin "${plugin.name}" it had returned before. ` +
            "Make new plugins inside it (() => [todoList()]), or two threads share one plan.",
        );
      }
      handedOut.add(plugin);
    }
    return plugins;
  };
}

export function isBridgeState(value: unknown): value is BridgeState {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Partial<BridgeState>;
  return typeof v.version === "number" && typeof v.plugins === "object" && v.plugins !== null && Array.isArray(v.continued);
}

/** What the plugins decided about one model turn, for a framework to carry out its own way. */
export type BridgedTurnDecisions = Omit<TurnDecisions, "notes"> & {
  /** The turn's calls after the plugins' rewrites, in call order. */
  calls: ToolCall[];
  /** Set when a plugin asked for one more model turn although this one called no tool. */
  continueNote?: string;
};

/**
 * Runs Stepwise planning plugins inside another framework's agent loop (the AI SDK, LangChain.js,
 * the OpenAI Agents SDK): one place that attaches them, joins their instructions, gathers their tail
 * messages, collects their after-model decisions and shows them tool results, so every adapter
 * keeps the plugin contract the same way the Stepwise `Agent` does.
 */
export class PluginBridge {
  readonly agentName: string;
  readonly plugins: readonly Plugin[];
  /** The plugins' tools, names checked unique. */
  readonly tools: readonly Tool[];
  readonly #events = new EventHub();
  /** Plugins that already had their one `continueWith` of the current run. */
  readonly #continued = new Set<Plugin>();
  /** The host framework's run in progress, which the plugins' events carry. */
  #scope: EventScope = {};

  constructor(plugins: readonly Plugin[], opts: PluginBridgeOptions) {
    this.agentName = opts.agentName;
    this.plugins = plugins;
    if (opts.state) {
      this.#load(opts.state);
      // Before attaching: a thread's plugins are remade for each step, which announces no change.
      loadPluginStates(plugins, opts.state.plugins);
    }
    if (opts.onEvent) this.#events.on(opts.onEvent);
    const host: PluginHost = {
      agentName: this.agentName,
      emit: (event) => this.#events.emit(stampEvent(event, this.agentName, this.#scope)),
      on: (listener) => this.#events.on(listener),
    };
    for (const plugin of plugins) plugin.attach?.(host);
    const names = new Set<string>();
    this.tools = plugins.flatMap((plugin) => plugin.tools?.() ?? []);
    for (const tool of this.tools) {
      if (names.has(tool.name)) throw new Error(`Two plugins offer a tool named "${tool.name}": tool names must be unique.`);
      names.add(tool.name);
    }
  }

  /** A new run of the host framework begins: each plugin may `continueWith` once again. */
  startRun(): void {
    this.#continued.clear();
    this.#scope = { runId: randomUUID() };
  }

  /** The run's id, once `startRun` gave it one. */
  get runId(): string | undefined {
    return this.#scope.runId;
  }

  /** Everything the plugins and the bridge keep for this thread or run, to store in the host's state. */
  save(): BridgeState {
    return {
      version: BRIDGE_STATE_VERSION,
      plugins: savePluginStates(this.plugins),
      continued: this.plugins.filter((plugin) => this.#continued.has(plugin)).map((plugin) => plugin.name),
      ...(this.#scope.runId !== undefined ? { runId: this.#scope.runId } : {}),
    };
  }

  #load(state: BridgeState): void {
    if (!isBridgeState(state)) throw new Error("The saved planning state is not what a Stepwise adapter saved: { version, plugins, continued }.");
    if (state.version > BRIDGE_STATE_VERSION) {
      throw new Error(`This planning state has version ${state.version}; this Stepwise reads up to ${BRIDGE_STATE_VERSION}.`);
    }
    for (const plugin of this.plugins) if (state.continued.includes(plugin.name)) this.#continued.add(plugin);
    if (state.runId !== undefined) this.#scope = { runId: state.runId };
  }

  /** `base` followed by the plugins' instructions; undefined when all are empty. */
  systemText(base?: string): string | undefined {
    const text = [base, ...this.plugins.map((plugin) => plugin.instructions?.())]
      .filter((part): part is string => typeof part === "string" && part.length > 0)
      .join("\n\n");
    return text.length > 0 ? text : undefined;
  }

  /** The memory a plugin wants to replace the conversation with (context folding), if any. */
  async rewriteMemory(ctx: TurnContext): Promise<Message[] | undefined> {
    let memory = ctx.memory;
    let replaced: Message[] | undefined;
    for (const plugin of this.plugins) {
      const rewritten = await plugin.rewriteMemory?.({ ...ctx, memory });
      if (rewritten) memory = replaced = rewritten;
    }
    return replaced;
  }

  /** The ephemeral messages to append at the tail of this one request (hint, recitation, notes). */
  async tailMessages(ctx: TurnContext, request: readonly Message[]): Promise<Message[]> {
    const tail: Message[] = [];
    for (const plugin of this.plugins) {
      const extra = await plugin.beforeModel?.({ ...ctx, messages: [...request, ...tail] });
      if (extra) tail.push(...extra);
    }
    return tail;
  }

  /** Lets every plugin refuse or rewrite the turn's calls (on a copy), or ask for one more turn. */
  async afterModel(ctx: TurnContext, message: AssistantMessage): Promise<BridgedTurnDecisions> {
    const calls = (message.toolCalls ?? []).map((call) => ({ ...call }));
    const { refusals, rewritten, notes } = await decideTurn(this.plugins, ctx, message, calls, this.#continued);
    return { refusals, calls, rewritten, ...(notes.length > 0 ? { continueNote: notes.join("\n\n") } : {}) };
  }

  /** Shows every plugin one tool result. */
  async afterTool(ctx: TurnContext, call: ToolCall, result: ToolResult, refused: boolean): Promise<void> {
    for (const plugin of this.plugins) await plugin.afterTool?.({ ...ctx, call, result, refused });
  }
}
