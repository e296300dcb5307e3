import { randomUUID } from "node:crypto";
import { EventHub, stampEvent, type AgentEventListener, type EventScope } from "../core/events.js";
import type { AssistantMessage, Message, ToolCall } from "../core/messages.js";
import type { Plugin, PluginHost, TurnContext } from "../core/plugin.js";
import type { Tool, ToolResult } from "../core/tool.js";
import { decideTurn, type TurnDecisions } from "../core/turn-decisions.js";

export interface PluginBridgeOptions {
  /** The name plugins see as the agent's (task owner, event stamp). */
  agentName: string;
  /** Receives the plugins' events (plan-updated, tasks-updated, todos-updated, …). */
  onEvent?: AgentEventListener;
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
