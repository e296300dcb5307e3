import { ABORTED, linkSignals, raceAbort } from "./abort.js";
import { EventHub, type AgentEvent, type AgentEventInit, type AgentEventListener } from "./events.js";
import { cloneMessages, type AssistantMessage, type Message, type ToolCall, type ToolMessage } from "./messages.js";
import { addUsage, type ChatModel, type Usage } from "./model.js";
import type { AfterModelContext, Plugin, PluginHost } from "./plugin.js";
import type { RunResult, StopReason } from "./run-result.js";
import { AGENT_STATE_VERSION, isAgentState, type AgentState } from "./state.js";
import type { Tool, ToolResult } from "./tool.js";
import { Toolkit } from "./toolkit.js";

export interface AgentOptions {
  name?: string;
  systemPrompt?: string;
  model: ChatModel;
  tools?: Tool[];
  plugins?: Plugin[];
  /** Most model calls in one run; reaching it ends the run with stopReason "max-steps". */
  maxSteps?: number;
}

export interface RunOptions {
  signal?: AbortSignal;
}

const DEFAULT_MAX_STEPS = 50;
const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

type CallOutcome = { call: ToolCall; result: ToolResult; refused: boolean };

/** A ReAct agent: call the model, run the tools it asks for, repeat until it answers. */
export class Agent {
  readonly name: string;
  readonly model: ChatModel;
  readonly systemPrompt: string | undefined;
  readonly maxSteps: number;
  readonly plugins: readonly Plugin[];
  readonly toolkit: Toolkit;
  #memory: Message[] = [];
  #usage: Usage = ZERO_USAGE;
  #running = false;
  readonly #events = new EventHub();

  constructor(opts: AgentOptions) {
    this.name = opts.name ?? "agent";
    this.model = opts.model;
    this.systemPrompt = opts.systemPrompt;
    this.maxSteps = opts.maxSteps ?? DEFAULT_MAX_STEPS;
    if (!Number.isInteger(this.maxSteps) || this.maxSteps < 1) {
      throw new Error(`maxSteps must be a whole number of at least 1, got ${String(opts.maxSteps)}.`);
    }
    this.plugins = opts.plugins ?? [];
    const pluginNames = new Set<string>();
    for (const plugin of this.plugins) {
      if (pluginNames.has(plugin.name)) throw new Error(`Two plugins are named "${plugin.name}": names must be unique.`);
      pluginNames.add(plugin.name);
    }
    this.toolkit = new Toolkit([...(opts.tools ?? []), ...this.plugins.flatMap((p) => p.tools?.() ?? [])]);
    const host: PluginHost = { agentName: this.name, emit: (event) => this.#emit(event) };
    for (const plugin of this.plugins) plugin.attach?.(host);
  }

  /** What persists between runs. Ephemeral plugin messages (hints, recitations) are never here. */
  get memory(): Message[] {
    return this.#memory;
  }

  /** Tokens used by every run of this agent since it was made or loaded. */
  get usage(): Usage {
    return this.#usage;
  }

  get tools(): Tool[] {
    return this.toolkit.all;
  }

  /** Subscribe to every event of every run; returns the unsubscribe function. */
  on(listener: AgentEventListener): () => void {
    return this.#events.on(listener);
  }

  async run(input: string, opts: RunOptions = {}): Promise<RunResult> {
    if (this.#running) throw new Error(`Agent "${this.name}" is already running; wait for its run to end first.`);
    this.#running = true;
    try {
      this.#memory.push({ role: "user", content: input });
      this.#emit({ type: "run-start", input });
      return await this.#loop(opts.signal);
    } catch (error) {
      this.#emit({ type: "run-error", message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      this.#running = false;
    }
  }

  /** The same run as `run`, as its events; the last one is `run-end`. Leaving the loop early aborts the run. */
  async *stream(input: string, opts: RunOptions = {}): AsyncIterable<AgentEvent> {
    const queue: AgentEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    let failure: { error: unknown } | undefined;
    const controller = new AbortController();
    const off = this.on((event) => {
      queue.push(event);
      wake?.();
    });
    const signal = linkSignals(opts.signal, controller.signal);
    this.run(input, signal ? { signal } : {}).then(
      () => {
        finished = true;
        wake?.();
      },
      (error: unknown) => {
        failure = { error };
        finished = true;
        wake?.();
      },
    );
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift() as AgentEvent;
        if (finished) break;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
      if (failure) throw failure.error;
    } finally {
      off();
      if (!finished) controller.abort();
    }
  }

  saveState(): AgentState {
    const plugins: Record<string, unknown> = {};
    for (const plugin of this.plugins) {
      if (plugin.saveState) plugins[plugin.name] = plugin.saveState();
    }
    return {
      version: AGENT_STATE_VERSION,
      agent: this.name,
      memory: cloneMessages(this.#memory),
      plugins: structuredClone(plugins),
      usage: { ...this.#usage },
    };
  }

  loadState(state: AgentState): void {
    if (!isAgentState(state)) {
      throw new Error("loadState expects an object saved by Agent.saveState(): { version, memory[], plugins{} }.");
    }
    if (state.version > AGENT_STATE_VERSION) {
      throw new Error(
        `This state has version ${state.version}; this Stepwise reads versions up to ${AGENT_STATE_VERSION}. Upgrade Stepwise to load it.`,
      );
    }
    if (this.#running) throw new Error(`Agent "${this.name}" is running; load state between runs.`);
    this.#memory = cloneMessages(state.memory);
    this.#usage = state.usage ? { ...state.usage } : ZERO_USAGE;
    for (const plugin of this.plugins) {
      if (plugin.name in state.plugins) plugin.loadState?.(structuredClone(state.plugins[plugin.name]));
    }
  }

  #emit(event: AgentEventInit): void {
    this.#events.emit({ ...event, agent: this.name, time: Date.now() } as AgentEvent);
  }

  async #loop(signal: AbortSignal | undefined): Promise<RunResult> {
    let steps = 0;
    let usage = ZERO_USAGE;
    let lastText = "";
    let notes: string[] = [];
    const continued = new Set<Plugin>();
    const finish = (stopReason: StopReason): RunResult => {
      this.#emit({ type: "run-end", stopReason, steps, text: lastText, usage });
      return { text: lastText, messages: cloneMessages(this.#memory), steps, stopReason, usage };
    };

    for (;;) {
      if (signal?.aborted) return finish("aborted");
      if (steps >= this.maxSteps) return finish("max-steps");
      steps++;
      const messages = await this.#buildRequest(steps, notes, signal);
      notes = [];
      this.#emit({ type: "model-start", step: steps, messageCount: messages.length, toolCount: this.toolkit.names.length });
      const started = Date.now();
      const request = { messages, tools: this.toolkit.specs(), ...(signal ? { signal } : {}) };
      const response = await raceAbort(this.model.generate(request), signal);
      if (response === ABORTED) return finish("aborted");
      usage = addUsage(usage, response.usage);
      this.#usage = addUsage(this.#usage, response.usage);
      const message = normalizeAssistant(response.message, steps);
      this.#memory.push(message);
      lastText = message.content;
      this.#emit({
        type: "model-end",
        step: steps,
        message: structuredClone(message),
        ...(response.usage ? { usage: response.usage } : {}),
        durationMs: Date.now() - started,
      });

      const turn = await this.#afterModel(message, steps, signal, continued);
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) {
        if (turn.notes.length === 0) return finish("final");
        notes = turn.notes;
        continue;
      }
      const outcomes = await Promise.all(calls.map((call) => this.#runCall(call, turn.refusals, steps, signal)));
      for (const { call, result } of outcomes) {
        const toolMessage: ToolMessage = { role: "tool", content: result.text, toolCallId: call.id, name: call.name };
        this.#memory.push(toolMessage);
      }
      for (const outcome of outcomes) {
        for (const plugin of this.plugins) {
          await plugin.afterTool?.({ ...this.#turnContext(steps, signal), ...outcome });
        }
      }
    }
  }

  async #buildRequest(step: number, notes: string[], signal: AbortSignal | undefined): Promise<Message[]> {
    const messages: Message[] = [];
    const system = [this.systemPrompt, ...this.plugins.map((p) => p.instructions?.())]
      .filter((part): part is string => typeof part === "string" && part.length > 0)
      .join("\n\n");
    if (system) messages.push({ role: "system", content: system });
    messages.push(...cloneMessages(this.#memory));
    for (const plugin of this.plugins) {
      const extra = await plugin.beforeModel?.({ ...this.#turnContext(step, signal), messages });
      if (extra) messages.push(...cloneMessages(extra));
    }
    for (const note of notes) messages.push({ role: "user", content: note });
    return messages;
  }

  async #afterModel(
    message: AssistantMessage,
    step: number,
    signal: AbortSignal | undefined,
    continued: Set<Plugin>,
  ): Promise<{ refusals: Map<string, string>; notes: string[] }> {
    const refusals = new Map<string, string>();
    const notes: string[] = [];
    const calls = message.toolCalls ?? [];
    for (const plugin of this.plugins) {
      if (!plugin.afterModel) continue;
      const ctx: AfterModelContext = {
        ...this.#turnContext(step, signal),
        message,
        toolCalls: calls,
        refuse: (callId, reason) => {
          if (!calls.some((c) => c.id === callId)) throw new Error(`refuse: no tool call with id "${callId}" in this turn.`);
          refusals.set(callId, reason);
        },
        rewrite: (callId, change) => {
          const call = calls.find((c) => c.id === callId);
          if (!call) throw new Error(`rewrite: no tool call with id "${callId}" in this turn.`);
          if (change.name !== undefined) call.name = change.name;
          if (change.arguments !== undefined) call.arguments = change.arguments;
        },
        continueWith: (note) => {
          if (continued.has(plugin)) return;
          continued.add(plugin);
          notes.push(note);
        },
      };
      await plugin.afterModel(ctx);
    }
    return { refusals, notes };
  }

  async #runCall(
    call: ToolCall,
    refusals: Map<string, string>,
    step: number,
    signal: AbortSignal | undefined,
  ): Promise<CallOutcome> {
    this.#emit({ type: "tool-start", step, call: { ...call } });
    const started = Date.now();
    const outcome = await this.#invoke(call, refusals, signal);
    this.#emit({ type: "tool-end", step, call: { ...call }, ...outcome, durationMs: Date.now() - started });
    return { call, ...outcome };
  }

  async #invoke(
    call: ToolCall,
    refusals: Map<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<{ result: ToolResult; refused: boolean }> {
    const refusal = refusals.get(call.id);
    if (refusal !== undefined) return { result: { text: refusal, isError: true }, refused: true };
    const tool = this.toolkit.get(call.name);
    if (!tool) {
      const text = `Unknown tool "${call.name}". Available tools: ${this.toolkit.names.join(", ") || "none"}.`;
      return { result: { text, isError: true }, refused: true };
    }
    if (signal?.aborted) return { result: { text: "Not run: the run was aborted.", isError: true }, refused: false };
    const ctx = { agentName: this.name, toolCallId: call.id, ...(signal ? { signal } : {}) };
    const result = await raceAbort(tool.invoke(call.arguments, ctx), signal);
    if (result === ABORTED) return { result: { text: "Stopped: the run was aborted before the tool finished.", isError: true }, refused: false };
    return { result, refused: false };
  }

  #turnContext(step: number, signal: AbortSignal | undefined) {
    return { agentName: this.name, step, memory: this.#memory, ...(signal ? { signal } : {}) };
  }
}

/** Fills what providers leave out (null content, missing or repeated call ids) so memory stays replayable. */
function normalizeAssistant(message: AssistantMessage, step: number): AssistantMessage {
  const content = typeof message.content === "string" ? message.content : "";
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: "assistant", content };
  const seen = new Set<string>();
  const toolCalls = calls.map((call, index) => {
    let id = typeof call.id === "string" && call.id.length > 0 ? call.id : `call_${step}_${index}`;
    if (seen.has(id)) id = `${id}_${index}`;
    seen.add(id);
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
    return { id, name: call.name, arguments: args };
  });
  return { role: "assistant", content, toolCalls };
}
