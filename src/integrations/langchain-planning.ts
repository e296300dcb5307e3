import { randomUUID } from "node:crypto";
import { AIMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware, tool as langChainTool } from "langchain";
import { z } from "zod";
import type { AgentEventListener } from "../core/events.js";
import type { Message, ToolCall } from "../core/messages.js";
import type { TurnContext } from "../core/plugin.js";
import type { Tool, ToolResult } from "../core/tool.js";
import { TODO_STATUSES, type Todo } from "../planning/todos/todo.js";
import { fromAIMessage, fromLangChainMessages, toLangChainMessage, toolCallsOf } from "./langchain-messages.js";
import { PluginBridge, pluginMaker, type BridgeState, type PluginFactory } from "./plugin-bridge.js";

export interface LangChainPlanningOptions {
  /** The name plugins see as the agent's (task owner, event stamp); default "langchain-agent". */
  agentName?: string;
  /** Receives the plugins' events (plan-updated, tasks-updated, todos-updated, …). */
  onEvent?: AgentEventListener;
}

/** The planning state of one thread, kept in the graph's `stepwise` channel (so checkpointed per `thread_id`). */
export type LangChainPlanningState = BridgeState & {
  /** New with every write, so a process can tell that the plugins it holds still match the checkpoint. */
  revision: string;
  /** Model calls made so far in the current run. */
  step: number;
  /** The note a plugin asked to send with the next model request only (`continueWith`). */
  note?: string | undefined;
  /** The calls of the latest tool round whose results the plugins have seen. */
  shown: string[];
};

const planningStateSchema = z.object({
  version: z.number(),
  plugins: z.record(z.string(), z.unknown()),
  continued: z.array(z.string()),
  runId: z.string().optional(),
  revision: z.string(),
  step: z.number(),
  note: z.string().optional(),
  shown: z.array(z.string()),
});

const stateSchema = z.object({
  /** Everything the plugins keep for this thread. */
  stepwise: planningStateSchema.optional(),
  /** The todo list as LangChain's own `todoListMiddleware` shows it (`result.todos`); a view, written by the middleware. */
  todos: z.array(z.object({ content: z.string(), status: z.enum(TODO_STATUSES) })).default([]),
});

/** How many runs' plugins a middleware keeps alive between steps; past it the oldest are rebuilt from the checkpoint. */
const LIVE_RUNS = 256;

/**
 * Gives a LangChain.js agent Stepwise planning, one middleware: `createAgent({ model, tools, middleware:
 * [langChainPlanning(() => [todoList()]), …] })`. The function makes a thread's plugins; what they
 * keep lives in the graph's state (`stepwise`, and `todos` for a todo list), so the agent's
 * checkpointer saves it per `thread_id` and a thread resumed in another process finds it.
 * What maps, hook by hook:
 * - the plugins' tools are bound to the model and run, through Stepwise's `invoke` (its argument
 *   repairs, its errors naming the wrong argument), when the model's turn is judged (after-model),
 *   in call order, before the agent's own tools;
 * - `instructions` join the system message and `beforeModel`'s tail (the plan hint, the todo
 *   recitation) is appended to each model request inside `wrapModelCall`, never stored in the
 *   graph's messages;
 * - `afterModel` refusals become error tool messages for those calls, rewrites replace the AI
 *   message, and a turn with nothing left for the agent's tools goes back to the model; an empty
 *   reply a plugin answers with `continueWith` is dropped and the model asked again with the note;
 * - `afterTool` sees every tool result, `rewriteMemory` (context folding) replaces the messages in
 *   state, and events go to `onEvent`.
 */
export function langChainPlanning(plugins: PluginFactory, opts: LangChainPlanningOptions = {}) {
  const agentName = opts.agentName ?? "langchain-agent";
  const makePlugins = pluginMaker(plugins, "langChainPlanning");
  const bridgeOptions = { agentName, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) };
  // Made once for what every thread shares: tool definitions and instructions.
  const blueprint = new PluginBridge(makePlugins(), { agentName });
  const ownTools = new Set(blueprint.tools.map((tool) => tool.name));
  const live = new Map<string, ThreadPlanning>();

  /** The thread's plugins as its checkpointed state has them: the live ones when they still match. */
  const open = (saved: LangChainPlanningState | undefined): ThreadPlanning => {
    const kept = saved?.runId !== undefined ? live.get(saved.runId) : undefined;
    if (kept && kept.revision === saved?.revision) return kept;
    return new ThreadPlanning(new PluginBridge(makePlugins(), { ...bridgeOptions, state: saved }), saved);
  };
  /** The state update that records `thread`, which stays live for the next step of its run. */
  const write = (thread: ThreadPlanning) => {
    const update = thread.toState();
    const runId = thread.bridge.runId;
    if (runId !== undefined) {
      live.delete(runId);
      live.set(runId, thread);
      for (const oldest of live.keys()) {
        if (live.size <= LIVE_RUNS) break;
        live.delete(oldest);
      }
    }
    return update;
  };

  return createMiddleware({
    name: "StepwisePlanning",
    stateSchema,
    tools: blueprint.tools.map((tool) => toLangChainTool(tool)),
    beforeAgent: (state) => {
      const thread = open(state.stepwise);
      thread.startRun();
      return write(thread);
    },
    beforeModel: async (state) => {
      const thread = open(state.stepwise);
      await thread.showResults(state.messages);
      const replaced = await thread.bridge.rewriteMemory(thread.context(state.messages, thread.step + 1));
      const update = write(thread);
      if (!replaced) return update;
      return { ...update, messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...replaced.map(toLangChainMessage)] };
    },
    wrapModelCall: async (request, handler) => {
      const thread = open(request.state.stepwise);
      const ctx = thread.context(request.messages, thread.step + 1);
      const instructions = blueprint.systemText();
      const systemMessage = instructions ? request.systemMessage.concat(`\n\n${instructions}`) : request.systemMessage;
      const system = systemMessage.text;
      const stepwiseRequest: Message[] = [...(system ? [{ role: "system" as const, content: system }] : []), ...ctx.memory];
      const tail = await thread.bridge.tailMessages(ctx, stepwiseRequest);
      if (thread.note !== undefined) tail.push({ role: "user", content: thread.note });
      return handler({ ...request, systemMessage, messages: [...request.messages, ...tail.map(toLangChainMessage)] });
    },
    afterModel: {
      canJumpTo: ["model"],
      hook: async (state, runtime) => {
        const last = state.messages.at(-1);
        if (!last || !AIMessage.isInstance(last)) return;
        const thread = open(state.stepwise);
        await thread.showResults(state.messages);
        const ctx = thread.context(state.messages, ++thread.step);
        thread.note = undefined;
        const decisions = await thread.bridge.afterModel(ctx, fromAIMessage(last));
        const messages: BaseMessage[] = [];
        if (decisions.rewritten) messages.push(rewrittenTurn(last, decisions.calls));
        thread.shown = [];
        let leftForTools = 0;
        for (const call of decisions.calls) {
          const reason = decisions.refusals.get(call.id);
          const own = reason === undefined && ownTools.has(call.name);
          if (reason === undefined && !own) {
            leftForTools++;
            continue;
          }
          const result: ToolResult = own ? await thread.invoke(call, runtime.signal) : { text: reason as string, isError: true };
          messages.push(toToolMessage(result, call.id, call.name));
          await thread.bridge.afterTool(ctx, call, result, !own);
          thread.shown.push(call.id);
        }
        if (decisions.continueNote !== undefined && last.id !== undefined && fromAIMessage(last).content.trim() === "") {
          // LangChain ends the run on a reply without calls before it reads `jumpTo`: drop the empty reply.
          thread.note = decisions.continueNote;
          return { ...write(thread), messages: [new RemoveMessage({ id: last.id })], jumpTo: "model" as const };
        }
        const update = write(thread);
        // Nothing left for the tools node: LangChain would end the run, the model must see the results.
        if (decisions.calls.length > 0 && leftForTools === 0) return { ...update, messages, jumpTo: "model" as const };
        return messages.length > 0 ? { ...update, messages } : update;
      },
    },
    wrapToolCall: async (request, handler) => {
      if (ownTools.has(request.toolCall.name)) {
        // The middleware runs its tools when it judges the model's turn; one reaching the tools node was not judged.
        return new ToolMessage({
          content: `${request.toolCall.name} runs only inside the StepwisePlanning middleware's model turn, and this call bypassed it; call it again.`,
          tool_call_id: request.toolCall.id ?? "",
          name: request.toolCall.name,
          status: "error",
        });
      }
      return handler(request);
    },
    afterAgent: (state) => {
      const runId = state.stepwise?.runId;
      if (runId !== undefined) live.delete(runId);
    },
  });
}

/** One thread's plugins during a step, with the bookkeeping its state channel keeps beside them. */
class ThreadPlanning {
  readonly bridge: PluginBridge;
  revision = "";
  step: number;
  note: string | undefined;
  shown: string[];

  constructor(bridge: PluginBridge, saved: LangChainPlanningState | undefined) {
    this.bridge = bridge;
    this.revision = saved?.revision ?? "";
    this.step = saved?.step ?? 0;
    this.note = saved?.note;
    this.shown = saved?.shown ?? [];
  }

  startRun(): void {
    this.bridge.startRun();
    this.step = 0;
    this.note = undefined;
    this.shown = [];
  }

  context(messages: readonly BaseMessage[], step: number): TurnContext {
    const runId = this.bridge.runId;
    return { agentName: this.bridge.agentName, step, memory: fromLangChainMessages(messages), ...(runId !== undefined ? { runId } : {}) };
  }

  invoke(call: ToolCall, signal: AbortSignal | undefined): Promise<ToolResult> {
    const tool = this.bridge.tools.find((t) => t.name === call.name) as Tool;
    return tool.invoke(call.arguments, { agentName: this.bridge.agentName, toolCallId: call.id, ...(signal ? { signal } : {}) });
  }

  /**
   * Shows the plugins the results of the latest tool round they have not seen: the agent's own tools
   * ran in the tools node, where the middleware keeps no state, so their results are shown here.
   */
  async showResults(messages: readonly BaseMessage[]): Promise<void> {
    const end = AIMessage.isInstance(messages.at(-1)) ? messages.length - 1 : messages.length;
    let start = end;
    while (start > 0 && ToolMessage.isInstance(messages[start - 1])) start--;
    const turn = messages[start - 1];
    if (start === end || !turn || !AIMessage.isInstance(turn)) return;
    const calls = new Map(toolCallsOf(turn).map((call) => [call.id, call]));
    const ctx = this.context(messages.slice(0, end), this.step);
    for (const message of messages.slice(start, end) as ToolMessage[]) {
      const call = calls.get(message.tool_call_id);
      if (!call || this.shown.includes(call.id)) continue;
      this.shown.push(call.id);
      const text = typeof message.content === "string" ? message.content : message.text;
      await this.bridge.afterTool(ctx, call, { text, isError: message.status === "error" }, false);
    }
  }

  /** The `stepwise` channel's new value (with a new revision), and the `todos` view when a todo list is there. */
  toState(): { stepwise: LangChainPlanningState; todos?: Todo[] } {
    this.revision = randomUUID();
    const stepwise: LangChainPlanningState = {
      ...this.bridge.save(),
      revision: this.revision,
      step: this.step,
      shown: [...this.shown],
      ...(this.note !== undefined ? { note: this.note } : {}),
    };
    const todos = this.bridge.plugins.find((plugin) => plugin.name === "todos" && "todos" in plugin) as { todos: Todo[] } | undefined;
    return todos ? { stepwise, todos: todos.todos } : { stepwise };
  }
}

/** The AI message with the plugins' rewritten calls, under the same id so the messages reducer replaces it. */
function rewrittenTurn(last: AIMessage, calls: readonly ToolCall[]): AIMessage {
  const rewritten = toLangChainMessage({ role: "assistant", content: fromAIMessage(last).content, toolCalls: [...calls] }) as AIMessage;
  return new AIMessage({ content: rewritten.content, tool_calls: rewritten.tool_calls ?? [], ...(last.id ? { id: last.id } : {}) });
}

function toToolMessage(result: ToolResult, toolCallId: string, name: string): ToolMessage {
  return new ToolMessage({ content: result.text, tool_call_id: toolCallId, name, status: result.isError ? "error" : "success" });
}

/**
 * The model is shown the very JSON Schema a Stepwise agent would send. The middleware runs these
 * tools itself, on the thread's own plugins; called directly, outside an agent's thread, a tool
 * has no plan to act on and says so.
 */
function toLangChainTool(tool: Tool) {
  return langChainTool(
    () => {
      throw new Error(`${tool.name} acts on a thread's plan and runs only inside the agent whose StepwisePlanning middleware offers it.`);
    },
    { name: tool.name, description: tool.description, schema: tool.parameters as Record<string, unknown> },
  );
}
