import type { AgentEventInit, AgentEventListener } from "./events.js";
import type { AssistantMessage, Message, ToolCall } from "./messages.js";
import type { ToolSpec } from "./model.js";
import type { Tool, ToolResult } from "./tool.js";

// The plugin contract: how planning enters an agent. A plugin contributes tools and hooks; everything
// optional. Hooks may be async (a store behind the plugin may need I/O). It changes rarely and
// deliberately, with the package's major version: add optional members rather than reshaping these.

/** What an agent hands a plugin when it is attached: its name and its event stream, both ways. */
export interface PluginHost {
  readonly agentName: string;
  emit(event: AgentEventInit): void;
  /**
   * See every event of the agent, other plugins' included; returns the unsubscribe function. Events
   * forwarded from nested runs (sub-agents, workflow steps) come too only with `nested: true`.
   */
  on(listener: AgentEventListener, opts?: { nested?: boolean }): () => void;
}

export interface TurnContext {
  readonly agentName: string;
  /** 1-based number of the model call within the current run. */
  readonly step: number;
  readonly memory: readonly Message[];
  readonly signal?: AbortSignal;
  /** The run in progress: the parent of any run a plugin starts for it. */
  readonly runId?: string;
  /** The tools the model request offers, which it carries beside its messages (what a request's size counts). */
  readonly tools?: readonly ToolSpec[];
}

export interface BeforeModelContext extends TurnContext {
  /** The request's messages so far (system prompt, memory, earlier plugins' tail messages). */
  readonly messages: readonly Message[];
}

export interface AfterModelContext extends TurnContext {
  readonly message: AssistantMessage;
  readonly toolCalls: readonly ToolCall[];
  /** Do not run this call; the model sees an error result with `reason` instead. */
  refuse(callId: string, reason: string): void;
  /** Run this call with another name and/or arguments; memory records the rewritten call. */
  rewrite(callId: string, change: { name?: string; arguments?: string }): void;
  /**
   * Ask for one more model turn although this one had no tool calls, with `note` appended to
   * that next request only (never stored). Honoured once per run per plugin.
   */
  continueWith(note: string): void;
}

export interface AfterToolContext extends TurnContext {
  readonly call: ToolCall;
  readonly result: ToolResult;
  /** True when the call was refused in `afterModel` or named an unknown tool. */
  readonly refused: boolean;
}

type MaybePromise<T> = T | Promise<T>;

export interface Plugin {
  readonly name: string;
  tools?(): Tool[];
  /**
   * Whether this plugin's tools only keep the agent's own plan state (default true), so permission
   * policies allow them like planning tools. A plugin that brings tools acting on the world (an MCP
   * server's) says false, and its tools are judged as read-only or write tools.
   */
  readonly planningTools?: boolean;
  /** Text appended to the agent's system prompt (stable: it should not change between calls). */
  instructions?(): string | undefined;
  /**
   * Before each model call, may return a replacement for the agent's memory (context folding).
   * Unlike beforeModel's messages, the replacement persists. Rewriting the middle of memory breaks
   * a provider's prompt cache, so do it rarely and in batches.
   */
  rewriteMemory?(ctx: TurnContext): MaybePromise<Message[] | void>;
  /** Ephemeral messages appended at the tail of this one model request; never stored in memory. */
  beforeModel?(ctx: BeforeModelContext): MaybePromise<Message[] | void>;
  afterModel?(ctx: AfterModelContext): MaybePromise<void>;
  afterTool?(ctx: AfterToolContext): MaybePromise<void>;
  /** Called once by each agent the plugin is given to. */
  attach?(host: PluginHost): void;
  saveState?(): unknown;
  loadState?(state: unknown): void;
  /** Releases what the plugin holds open (an MCP connection, a database pool); called by Agent.close. */
  close?(): Promise<void> | void;
}

/** Fans a plugin's events out to every agent it is attached to. */
export class PluginHosts {
  readonly #hosts = new Set<PluginHost>();

  add(host: PluginHost): void {
    this.#hosts.add(host);
  }

  emit(event: AgentEventInit): void {
    for (const host of this.#hosts) host.emit(event);
  }

  /** Sends an event only to the agent named: one about that agent's own request, not shared state. */
  emitTo(agentName: string, event: AgentEventInit): void {
    for (const host of this.#hosts) if (host.agentName === agentName) host.emit(event);
  }
}
