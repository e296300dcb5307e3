import { ABORTED, linkSignals, raceAbort } from "./abort.js";
import { checkDecisions, editedArguments, type ApprovalDecision, type ApprovalDecisions, type PendingCall, type PendingTurn } from "./approval.js";
import { boundedQuote } from "./bounded-quote.js";
import { deniedCallText, editedCallNote, INTERRUPTED_CALL_TEXT, rejectedCallText } from "./call-outcome-texts.js";
import {
  EventHub,
  stampEvent,
  type AgentEvent,
  type AgentEventInit,
  type AgentEventListener,
  type EventParent,
  type EventScope,
} from "./events.js";
import { cloneMessages, type AssistantMessage, type Message, type ToolCall, type ToolMessage } from "./messages.js";
import { addUsage, type ChatModel, type ModelRequest, type ModelResponse, type Usage } from "./model.js";
import { RequestDeltas } from "./request-delta.js";
import { decidePermission, type PermissionPolicy } from "./permissions.js";
import type { Plugin, PluginHost } from "./plugin.js";
import type { RunResult, StopReason } from "./run-result.js";
import { AGENT_STATE_VERSION, isAgentState, type AgentState } from "./state.js";
import type { Tool, ToolContext, ToolResult } from "./tool.js";
import { Toolkit } from "./toolkit.js";
import { decideTurn } from "./turn-decisions.js";
import { loadPluginStates, savePluginStates } from "./plugin-states.js";

export interface AgentOptions {
  name?: string;
  systemPrompt?: string;
  model: ChatModel;
  tools?: Tool[];
  plugins?: Plugin[];
  /** Most model calls in one run; reaching it ends the run with stopReason "max-steps". */
  maxSteps?: number;
  /**
   * Which calls run, pause for approval or are refused. Without a policy every call runs, except
   * tools that always need the user (ask_user, a plan under review).
   */
  permissions?: PermissionPolicy;
}

export interface RunOptions {
  /** Stops the run at once, as "aborted": a model or tool call in flight is cut off. */
  signal?: AbortSignal;
  /**
   * Stops the run as "aborted" once the step in flight is done: its model call and tool calls finish
   * and are recorded, and no next model call is made (a worker handing its runs back).
   */
  stopAfterStep?: AbortSignal;
  /** The run this one serves (a workflow step, the tool call that started it); every event carries it. */
  parent?: EventParent;
}

const DEFAULT_MAX_STEPS = 50;
const ZERO_USAGE: Usage = Object.freeze({ inputTokens: 0, outputTokens: 0 });

type Outcome = { result: ToolResult; refused: boolean };
type CallOutcome = Outcome & { call: ToolCall };

/** Where a run's counters stand; a resumed run starts a fresh one. */
type RunProgress = { steps: number; usage: Usage; lastText: string };

/** A ReAct agent: call the model, run the tools it asks for, repeat until it answers. */
export class Agent {
  readonly name: string;
  readonly model: ChatModel;
  readonly systemPrompt: string | undefined;
  readonly maxSteps: number;
  readonly plugins: readonly Plugin[];
  readonly toolkit: Toolkit;
  readonly permissions: PermissionPolicy | undefined;
  readonly #planningToolNames: Set<string>;
  #memory: Message[] = [];
  #pending: PendingTurn | undefined;
  #usage: Usage = ZERO_USAGE;
  /** Each model-start logs its request as a delta from the one before, within one loop. */
  readonly #requests = new RequestDeltas();
  #running = false;
  /** The run in progress, which stamps every event. */
  #scope: EventScope = {};
  readonly #events = new EventHub();
  /** Events forwarded from nested runs, which plugins see only when they ask to. */
  readonly #nested = new WeakSet<AgentEvent>();

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
    const contributed = this.plugins.map((plugin) => ({ plugin, tools: plugin.tools?.() ?? [] }));
    const pluginTools = contributed.flatMap((c) => c.tools);
    this.#planningToolNames = new Set(
      contributed.filter((c) => c.plugin.planningTools !== false).flatMap((c) => c.tools.map((t) => t.name)),
    );
    this.toolkit = new Toolkit([...(opts.tools ?? []), ...pluginTools]);
    this.permissions = opts.permissions;
    const host: PluginHost = {
      agentName: this.name,
      emit: (event) => this.#emit(event),
      on: (listener, opts) =>
        this.#events.on(opts?.nested ? listener : (event) => void (this.#nested.has(event) || listener(event))),
    };
    for (const plugin of this.plugins) plugin.attach?.(host);
  }

  /** What persists between runs. Ephemeral plugin messages (hints, recitations) are never here. */
  get memory(): Message[] {
    return this.#memory;
  }

  /** Tokens used by every run of this agent since it was made or loaded. */
  get usage(): Usage {
    return { ...this.#usage };
  }

  get tools(): Tool[] {
    return this.toolkit.all;
  }

  /** Subscribe to every event of every run; returns the unsubscribe function. */
  on(listener: AgentEventListener): () => void {
    return this.#events.on(listener);
  }

  /** The calls the agent is waiting on the user for, if it stopped with "awaiting-user". */
  get pending(): PendingCall[] {
    return structuredClone(this.#pending?.awaiting ?? []);
  }

  async run(input: string, opts: RunOptions = {}): Promise<RunResult> {
    this.#assertNotPending();
    return this.#exclusive(opts, async () => {
      this.#memory.push({ role: "user", content: input });
      this.#emit({ type: "run-start", input });
      return this.#loop(opts);
    });
  }

  /**
   * Continues from memory as it stands, without new input: after loading the checkpoint of a run
   * that was interrupted (killed, aborted, out of steps). A run that already ended with an answer
   * ends again at once with that answer.
   */
  async continue(opts: RunOptions = {}): Promise<RunResult> {
    this.#assertNotPending();
    const last = this.#memory.at(-1);
    if (!last) throw new Error(`Agent "${this.name}" has no memory to continue from; call run(input) instead.`);
    return this.#exclusive(opts, async () => {
      if (last.role === "assistant" && !last.toolCalls?.length) {
        const result = { text: last.content, messages: cloneMessages(this.#memory), steps: 0, usage: { ...ZERO_USAGE } };
        return { ...result, stopReason: "final" as const };
      }
      if (last.role === "assistant") this.#answerInterruptedCalls(last.toolCalls ?? []);
      return this.#loop(opts);
    });
  }

  /** Calls whose results were never recorded may or may not have run: say so rather than run them twice. */
  #answerInterruptedCalls(calls: readonly ToolCall[]): void {
    for (const call of calls) {
      this.#memory.push({ role: "tool", content: INTERRUPTED_CALL_TEXT, toolCallId: call.id, name: call.name });
    }
  }

  #assertNotPending(): void {
    if (!this.#pending) return;
    const ids = this.#pending.awaiting.map((c) => c.id).join(", ");
    throw new Error(`Agent "${this.name}" is waiting for the user's decision on ${ids}; call resume(state, decisions) first.`);
  }

  /**
   * Continues a run that stopped with "awaiting-user": loads `state` when given (a state saved
   * in this process or another, days ago), applies a decision to every pending call — approved and
   * edited calls run, rejected ones get the user's reason, questions get the answer — and goes on.
   */
  async resume(state: AgentState | null | undefined, decisions: ApprovalDecisions, opts: RunOptions = {}): Promise<RunResult> {
    if (state) this.loadState(state);
    const pending = this.#pending;
    if (!pending) throw new Error(`Agent "${this.name}" has nothing to resume: it is not waiting for a decision.`);
    checkDecisions(pending.awaiting, decisions);
    return this.#exclusive(opts, async () => {
      this.#emit({ type: "run-resumed", decisions: pending.awaiting.length });
      const results = { ...pending.results };
      const nested = pending.nested ?? {};
      const ownedByTools = new Set(Object.values(nested).flatMap((paused) => paused.calls));
      await Promise.all([
        ...pending.awaiting
          .filter((call) => !ownedByTools.has(call.id))
          .map(async (call) => {
            results[call.id] = await this.#decide(call, decisions[call.id] as ApprovalDecision, opts.signal);
          }),
        // A tool that paused is called again with its state and the decisions on its own calls.
        ...Object.entries(nested).map(async ([id, paused]) => {
          const call = pending.calls.find((c) => c.id === id) as ToolCall;
          const resumed = { state: paused.state, decisions: Object.fromEntries(paused.calls.map((c) => [c, decisions[c] as ApprovalDecision])) };
          results[id] = await this.#track(call, 0, () => this.#invoke(call, opts.signal, undefined, resumed));
        }),
      ]);
      this.#pending = undefined;
      // The turn's calls as they ran: an edited call whose tool paused goes on with the edited arguments.
      const calls = pending.calls.map((call) => {
        const decision = decisions[call.id];
        return decision?.action === "edit" ? { ...call, arguments: editedArguments(decision) } : call;
      });
      return this.#loop(opts, { calls, results });
    });
  }

  /**
   * Gives up waiting on the paused turn as a run killed mid-turn would: the results it already has are
   * kept and each awaiting call is answered as interrupted, so `continue()` goes on without asking.
   * For a run killed after the user's decisions were applied: an approved call is never made twice.
   */
  abandonPending(): void {
    const pending = this.#pending;
    if (!pending) return;
    if (this.#running) throw new Error(`Agent "${this.name}" is running; give up its pending calls between runs.`);
    this.#pending = undefined;
    for (const call of pending.calls) {
      const content = pending.results[call.id]?.result.text ?? INTERRUPTED_CALL_TEXT;
      this.#memory.push({ role: "tool", content, toolCallId: call.id, name: call.name });
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
    const soft = opts.stopAfterStep ? { stopAfterStep: opts.stopAfterStep } : {};
    this.run(input, { ...(signal ? { signal } : {}), ...soft, ...(opts.parent ? { parent: opts.parent } : {}) }).then(
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
    return {
      version: AGENT_STATE_VERSION,
      agent: this.name,
      memory: cloneMessages(this.#memory),
      plugins: savePluginStates(this.plugins),
      usage: { ...this.#usage },
      ...(this.#pending ? { pending: structuredClone(this.#pending) } : {}),
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
    this.#pending = state.pending ? structuredClone(state.pending) : undefined;
    loadPluginStates(this.plugins, state.plugins);
  }

  /** Closes every plugin that holds something open (MCP connections, store pools). Safe to call twice. */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.plugins.map(async (plugin) => plugin.close?.()));
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed.length > 0) throw new AggregateError(failed.map((f) => f.reason as unknown), `${failed.length} plugin(s) failed to close`);
  }

  #emit(event: AgentEventInit): void {
    const stamped = stampEvent(event, this.name, this.#scope);
    if (stamped === event) this.#nested.add(stamped);
    this.#events.emit(stamped);
  }

  async #exclusive(opts: RunOptions, body: () => Promise<RunResult>): Promise<RunResult> {
    if (this.#running) throw new Error(`Agent "${this.name}" is already running; wait for its run to end first.`);
    this.#running = true;
    this.#scope = { runId: crypto.randomUUID(), ...(opts.parent ? { parent: opts.parent } : {}) };
    try {
      return await body();
    } catch (error) {
      this.#emit({ type: "run-error", message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      this.#running = false;
      this.#scope = {};
    }
  }

  /** Runs model turns until the run ends; `resumed` is a turn that was waiting for the user, to finish first. */
  async #loop(opts: RunOptions, resumed?: { calls: ToolCall[]; results: Record<string, Outcome> }): Promise<RunResult> {
    const { signal, stopAfterStep } = opts;
    const progress: RunProgress = { steps: 0, usage: ZERO_USAGE, lastText: "" };
    this.#requests.reset();
    let notes: string[] = [];
    const continued = new Set<Plugin>();
    const finish = (stopReason: StopReason): RunResult => {
      const { steps, usage, lastText: text } = progress;
      this.#emit({ type: "run-end", stopReason, steps, text, usage });
      const pending = this.#pending ? { pending: structuredClone(this.#pending.awaiting) } : {};
      return { text, messages: cloneMessages(this.#memory), steps, stopReason, usage: { ...usage }, ...pending };
    };

    if (resumed) {
      if (this.#holdTurn(resumed.calls, resumed.results, [])) return finish("awaiting-user");
      await this.#completeTurn(resumed.calls, resumed.results, 0, signal);
    }
    for (;;) {
      // Between steps: the last one's calls are done and recorded (its turn-end), the next model call not made.
      if (signal?.aborted || stopAfterStep?.aborted) return finish("aborted");
      if (progress.steps >= this.maxSteps) return finish("max-steps");
      const step = ++progress.steps;
      const { messages, ephemeralFrom } = await this.#buildRequest(step, notes, signal);
      notes = [];
      const model = this.model.id;
      const logged = this.#requests.next(messages, ephemeralFrom);
      this.#emit({ type: "model-start", step, messageCount: messages.length, toolCount: this.toolkit.names.length, model, request: logged });
      const started = Date.now();
      const request = { messages, tools: this.toolkit.specs(), ephemeralFrom, ...(signal ? { signal } : {}) };
      const response = await raceAbort(this.#callModel(request, step, signal), signal);
      if (response === ABORTED) return finish("aborted");
      progress.usage = addUsage(progress.usage, response.usage);
      this.#usage = addUsage(this.#usage, response.usage);
      const message = normalizeAssistant(response.message);
      this.#memory.push(message);
      progress.lastText = message.content;
      this.#emit({
        type: "model-end",
        step,
        message: structuredClone(message),
        ...(response.usage ? { usage: response.usage } : {}),
        durationMs: Date.now() - started,
        model,
      });

      const turn = await decideTurn(this.plugins, this.#turnContext(step, signal), message, message.toolCalls ?? [], continued);
      const calls = message.toolCalls ?? [];
      if (calls.length === 0) {
        if (turn.notes.length === 0) return finish("final");
        notes = turn.notes;
        continue;
      }
      const gates = calls.map((call) => this.#gate(call, turn.refusals));
      const awaiting: PendingCall[] = calls
        .filter((_, i) => gates[i] === "ask")
        .map((call) => ({ ...call, kind: this.toolkit.get(call.name)?.interactive ? "question" : "approval" }));
      const results: Record<string, Outcome> = {};
      await Promise.all(
        calls.map(async (call, i) => {
          const gate = gates[i];
          if (gate === "ask") return;
          results[call.id] = await this.#track(call, step, () => gate ?? this.#invoke(call, signal));
        }),
      );
      if (this.#holdTurn(calls, results, awaiting)) return finish("awaiting-user");
      await this.#completeTurn(calls, results, step, signal);
    }
  }

  /**
   * Keeps a turn that waits for the user as the pending turn: its calls that ask, and the calls of
   * each tool that paused (ToolPause), whose results are then still to come. False when nothing waits.
   */
  #holdTurn(calls: readonly ToolCall[], results: Record<string, Outcome>, awaiting: PendingCall[]): boolean {
    const nested: NonNullable<PendingTurn["nested"]> = {};
    const all = [...awaiting];
    for (const call of calls) {
      const paused = results[call.id]?.result.paused;
      if (!paused) continue;
      delete results[call.id];
      nested[call.id] = { state: paused.state, calls: paused.calls.map((c) => c.id) };
      all.push(...paused.calls);
    }
    if (all.length === 0) return false;
    const tools = Object.keys(nested).length > 0 ? { nested } : {};
    this.#pending = structuredClone({ calls: [...calls], results, awaiting: all, ...tools });
    this.#emit({ type: "approval-requested", calls: structuredClone(all) });
    return true;
  }

  /** One model call, streamed when the model can, so that text and tool calls show as they begin. */
  async #callModel(request: ModelRequest, step: number, signal: AbortSignal | undefined): Promise<ModelResponse> {
    if (!this.model.stream) return this.model.generate(request);
    for await (const part of this.model.stream(request)) {
      // An aborted run has ended already: nothing of its call may follow its run-end.
      if (signal?.aborted) break;
      if (part.type === "text-delta") this.#emit({ type: "text-delta", step, text: part.text });
      else if (part.type === "tool-call-start") this.#emit({ type: "tool-call-start", step, callId: part.id, name: part.name });
      else return part.response;
    }
    signal?.throwIfAborted();
    throw new Error(`Model "${this.model.id}" ended its stream without a response.`);
  }

  /** Appends a turn's results in call order, then lets plugins see each one. */
  async #completeTurn(
    calls: readonly ToolCall[],
    results: Record<string, Outcome>,
    step: number,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const outcomes: CallOutcome[] = calls.map((call) => ({ call, ...(results[call.id] as Outcome) }));
    for (const { call, result } of outcomes) {
      const toolMessage: ToolMessage = { role: "tool", content: result.text, toolCallId: call.id, name: call.name };
      this.#memory.push(toolMessage);
    }
    for (const outcome of outcomes) {
      for (const plugin of this.plugins) {
        await plugin.afterTool?.({ ...this.#turnContext(step, signal), ...outcome });
      }
    }
    this.#emit({ type: "turn-end", step });
  }

  /** The request's messages: system prompt and memory (the stable prefix), then the ephemeral tail from `ephemeralFrom`. */
  async #buildRequest(step: number, notes: string[], signal: AbortSignal | undefined): Promise<{ messages: Message[]; ephemeralFrom: number }> {
    for (const plugin of this.plugins) {
      const rewritten = await plugin.rewriteMemory?.(this.#turnContext(step, signal));
      if (rewritten) this.#memory = cloneMessages(rewritten);
    }
    const messages: Message[] = [];
    const system = [this.systemPrompt, ...this.plugins.map((p) => p.instructions?.())]
      .filter((part): part is string => typeof part === "string" && part.length > 0)
      .join("\n\n");
    if (system) messages.push({ role: "system", content: system });
    messages.push(...cloneMessages(this.#memory));
    const ephemeralFrom = messages.length;
    for (const plugin of this.plugins) {
      const extra = await plugin.beforeModel?.({ ...this.#turnContext(step, signal), messages });
      if (extra) messages.push(...cloneMessages(extra));
    }
    for (const note of notes) messages.push({ role: "user", content: note });
    return { messages, ephemeralFrom };
  }

  /**
   * Decides a call before it runs: an outcome when it must not run (refused by a plugin, unknown,
   * denied), "ask" when the user must decide, undefined when it may run now.
   */
  #gate(call: ToolCall, refusals: Map<string, string>): Outcome | "ask" | undefined {
    const refusal = refusals.get(call.id);
    if (refusal !== undefined) return { result: { text: refusal, isError: true }, refused: true };
    const tool = this.toolkit.get(call.name);
    if (!tool) {
      const text = `Unknown tool ${boundedQuote(call.name, 64)}. Available tools: ${this.toolkit.names.join(", ") || "none"}.`;
      return { result: { text, isError: true }, refused: true };
    }
    const decision = decidePermission(this.permissions, call, tool, this.#planningToolNames.has(call.name));
    if (decision === "deny") {
      return { result: { text: deniedCallText(call.name), isError: true }, refused: true };
    }
    if (decision !== "ask") return undefined;
    // Never ask the user about a call that could not run as written: the model fixes it first.
    const problem = tool.check?.(call.arguments);
    return problem ? { result: problem, refused: true } : "ask";
  }

  /** Runs one call between its tool-start and tool-end events. */
  async #track(call: ToolCall, step: number, body: () => Outcome | Promise<Outcome>): Promise<Outcome> {
    this.#emit({ type: "tool-start", step, call: { ...call } });
    const started = Date.now();
    const outcome = await body();
    // A call that paused has not ended: it ends when the run goes on.
    if (!outcome.result.paused) this.#emit({ type: "tool-end", step, call: { ...call }, ...outcome, durationMs: Date.now() - started });
    return outcome;
  }

  async #invoke(call: ToolCall, signal: AbortSignal | undefined, editedFrom?: string, resumed?: ToolContext["resumed"]): Promise<Outcome> {
    const tool = this.toolkit.get(call.name);
    if (!tool) throw new Error(`internal: tool "${call.name}" vanished`);
    if (signal?.aborted) return { result: { text: "Not run: the run was aborted.", isError: true }, refused: false };
    const ctx = {
      agentName: this.name,
      toolCallId: call.id,
      ...(this.#scope.runId !== undefined ? { runId: this.#scope.runId } : {}),
      ...(signal ? { signal } : {}),
      ...(editedFrom !== undefined ? { editedFrom } : {}),
      ...(resumed ? { resumed } : {}),
    };
    const result = await raceAbort(tool.invoke(call.arguments, ctx), signal);
    if (result === ABORTED) return { result: { text: "Stopped: the run was aborted before the tool finished.", isError: true }, refused: false };
    // An agent's call is what its model read: a result's `value` serves workflow steps only.
    const { value: _value, ...read } = result;
    return { result: read, refused: false };
  }

  /** Applies the user's decision to one pending call. */
  async #decide(call: PendingCall, decision: ApprovalDecision, signal: AbortSignal | undefined): Promise<Outcome> {
    switch (decision.action) {
      case "answer":
        return this.#track(call, 0, () => ({ result: { text: decision.text, isError: false }, refused: false }));
      case "reject":
        return this.#track(call, 0, () => ({ result: { text: rejectedCallText(decision.reason), isError: true }, refused: true }));
      case "approve":
        return this.#track(call, 0, () => this.#invoke(call, signal));
      case "edit": {
        const edited = editedArguments(decision);
        this.#recordEdit(call.id, edited);
        const ran = { ...call, arguments: edited };
        const outcome = await this.#track(ran, 0, () => this.#invoke(ran, signal, call.arguments));
        if (!outcome.result.isError && this.toolkit.get(call.name)?.explainsEdits) return outcome;
        return { ...outcome, result: { ...outcome.result, text: `${outcome.result.text}\n${editedCallNote(edited)}` } };
      }
    }
  }

  /** Memory records the call as it ran, so the history stays true. */
  #recordEdit(callId: string, args: string): void {
    for (let i = this.#memory.length - 1; i >= 0; i--) {
      const message = this.#memory[i];
      const call = message?.role === "assistant" ? message.toolCalls?.find((c) => c.id === callId) : undefined;
      if (call) {
        call.arguments = args;
        return;
      }
    }
  }

  #turnContext(step: number, signal: AbortSignal | undefined) {
    const runId = this.#scope.runId;
    return { agentName: this.name, step, memory: this.#memory, tools: this.toolkit.specs(), ...(signal ? { signal } : {}), ...(runId !== undefined ? { runId } : {}) };
  }
}

/** Fills what providers leave out (null content, missing or repeated call ids) so memory stays replayable. */
function normalizeAssistant(message: AssistantMessage): AssistantMessage {
  const content = typeof message.content === "string" ? message.content : "";
  const calls = message.toolCalls ?? [];
  if (calls.length === 0) return { role: "assistant", content };
  const seen = new Set<string>();
  const toolCalls = calls.map((call, index) => {
    // Filled ids must be unique across runs: context folding and recall key turns by call id.
    let id = typeof call.id === "string" && call.id.length > 0 ? call.id : `call_${crypto.randomUUID().slice(0, 13)}`;
    if (seen.has(id)) id = `${id}_${index}`;
    seen.add(id);
    const args = typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {});
    return { id, name: call.name, arguments: args };
  });
  return { role: "assistant", content, toolCalls };
}
