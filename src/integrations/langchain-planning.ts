import { AIMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { createMiddleware, tool as langChainTool, type AgentMiddleware } from "langchain";
import type { AgentEventListener } from "../core/events.js";
import type { Message } from "../core/messages.js";
import type { Plugin, TurnContext } from "../core/plugin.js";
import type { Tool, ToolResult } from "../core/tool.js";
import { fromAIMessage, fromLangChainMessages, toLangChainMessage } from "./langchain-messages.js";
import { PluginBridge } from "./plugin-bridge.js";

export interface LangChainPlanningOptions {
  /** The name plugins see as the agent's (task owner, event stamp); default "langchain-agent". */
  agentName?: string;
  /** Receives the plugins' events (plan-updated, tasks-updated, todos-updated, …). */
  onEvent?: AgentEventListener;
}

/**
 * Gives a LangChain.js agent Stepwise planning: `createAgent({ model, tools, middleware:
 * langChainPlanning([new PlanNotebook()]) })`. What maps, hook by hook:
 * - the plugins' tools are bound to the model, and run through Stepwise's `invoke` (its argument
 *   repairs and its errors naming the wrong argument), as error tool messages when they fail;
 * - `instructions` join the system message and `beforeModel`'s tail (the plan hint, the todo
 *   recitation) is appended to each model request inside `wrapModelCall`, so it is never stored in
 *   the graph's state and never summarised away;
 * - `afterModel` refusals become error tool messages for those calls (LangChain then runs only the
 *   others), rewrites replace the AI message, `continueWith` sends the model round once more;
 * - `afterTool` sees every tool result, `rewriteMemory` (context folding) replaces the messages in
 *   state, and `attach` events go to `onEvent`.
 * One middleware serves one run at a time, as the plugins hold one plan.
 */
export function langChainPlanning(plugins: readonly Plugin[], opts: LangChainPlanningOptions = {}): AgentMiddleware[] {
  const agentName = opts.agentName ?? "langchain-agent";
  const bridge = new PluginBridge(plugins, { agentName, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) });
  const ownTools = new Map(bridge.tools.map((tool) => [tool.name, tool]));
  let step = 0;
  let continueNote: string | undefined;
  const context = (messages: readonly BaseMessage[]): TurnContext => ({ agentName, step, memory: fromLangChainMessages(messages) });

  const middleware = createMiddleware({
    name: "StepwisePlanning",
    tools: bridge.tools.map((tool) => toLangChainTool(tool, agentName)),
    beforeAgent: () => {
      step = 0;
      continueNote = undefined;
      bridge.startRun();
    },
    beforeModel: async (state) => {
      step++;
      const replaced = await bridge.rewriteMemory(context(state.messages));
      if (!replaced) return;
      return { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...replaced.map(toLangChainMessage)] };
    },
    wrapModelCall: async (request, handler) => {
      const ctx = context(request.messages);
      const instructions = bridge.systemText();
      const systemMessage = instructions ? request.systemMessage.concat(`\n\n${instructions}`) : request.systemMessage;
      const system = systemMessage.text;
      const stepwiseRequest: Message[] = [...(system ? [{ role: "system" as const, content: system }] : []), ...ctx.memory];
      const tail = await bridge.tailMessages(ctx, stepwiseRequest);
      if (continueNote !== undefined) tail.push({ role: "user", content: continueNote });
      continueNote = undefined;
      return handler({ ...request, systemMessage, messages: [...request.messages, ...tail.map(toLangChainMessage)] });
    },
    afterModel: {
      canJumpTo: ["model"],
      hook: async (state) => {
        const last = state.messages.at(-1);
        if (!last || !AIMessage.isInstance(last)) return;
        const ctx = context(state.messages);
        const decisions = await bridge.afterModel(ctx, fromAIMessage(last));
        const updates: BaseMessage[] = [];
        if (decisions.rewritten) {
          const rewritten = toLangChainMessage({ role: "assistant", content: fromAIMessage(last).content, toolCalls: decisions.calls });
          // Same id: the messages reducer replaces the stored turn instead of adding one.
          updates.push(new AIMessage({ content: rewritten.content, tool_calls: (rewritten as AIMessage).tool_calls ?? [], ...(last.id ? { id: last.id } : {}) }));
        }
        for (const call of decisions.calls) {
          const reason = decisions.refusals.get(call.id);
          if (reason === undefined) continue;
          updates.push(new ToolMessage({ content: reason, tool_call_id: call.id, name: call.name, status: "error" }));
          await bridge.afterTool(ctx, call, { text: reason, isError: true }, true);
        }
        if (decisions.continueNote !== undefined) {
          continueNote = decisions.continueNote;
          return { jumpTo: "model" as const };
        }
        return updates.length > 0 ? { messages: updates } : undefined;
      },
    },
    wrapToolCall: async (request, handler) => {
      const call = { id: request.toolCall.id ?? "", name: request.toolCall.name, arguments: JSON.stringify(request.toolCall.args ?? {}) };
      const own = ownTools.get(call.name);
      let message: ToolMessage;
      if (own) {
        const signal = request.runtime.signal;
        const result = await own.invoke(request.toolCall.args, { agentName, toolCallId: call.id, ...(signal ? { signal } : {}) });
        message = toToolMessage(result, call.id, call.name);
      } else {
        const output = await handler(request);
        if (!ToolMessage.isInstance(output)) return output; // a Command: another middleware's business
        message = output;
      }
      const text = typeof message.content === "string" ? message.content : message.text;
      await bridge.afterTool(context(request.state.messages), call, { text, isError: message.status === "error" }, false);
      return message;
    },
  });
  // LangChain's middleware types do not compile under exactOptionalPropertyTypes; the value is a middleware.
  return [middleware as unknown as AgentMiddleware];
}

function toToolMessage(result: ToolResult, toolCallId: string, name: string): ToolMessage {
  return new ToolMessage({ content: result.text, tool_call_id: toolCallId, name, status: result.isError ? "error" : "success" });
}

/**
 * The model is shown the very JSON Schema a Stepwise agent would send. Inside the agent the middleware
 * runs these tools itself (so Stepwise validates, with its own messages); the function here serves
 * callers that invoke the LangChain tool directly.
 */
function toLangChainTool(tool: Tool, agentName: string) {
  return langChainTool(
    async (input: unknown, config?: { toolCall?: { id?: string } }) => {
      const toolCallId = config?.toolCall?.id;
      const result = await tool.invoke(input, { agentName, ...(toolCallId ? { toolCallId } : {}) });
      return toolCallId ? toToolMessage(result, toolCallId, tool.name) : result.text;
    },
    { name: tool.name, description: tool.description, schema: tool.parameters as Record<string, unknown> },
  );
}
