import { jsonSchema, tool as aiTool, type ModelMessage, type PrepareStepFunction, type StepResult, type Tool as AiTool } from "ai";
import type { AgentEventListener } from "../core/events.js";
import type { Message, ToolCall } from "../core/messages.js";
import type { Plugin } from "../core/plugin.js";
import { ToolError, type Tool, type ToolResult } from "../core/tool.js";
import { fromModelMessages, toModelMessage } from "../models/ai-sdk-messages.js";
import { PluginBridge } from "./plugin-bridge.js";

/** AI SDK tools by name (the SDK's own `ToolSet` fails its own constraint under exactOptionalPropertyTypes). */
export type AiTools = Record<string, AiTool>;

export interface AiSdkPlanningOptions {
  /** The name plugins see as the agent's (task owner, event stamp); default "ai-sdk-agent". */
  agentName?: string;
  /** Your system prompt; the plugins' instructions are appended to it in `system`. */
  system?: string;
  /** Receives the plugins' events (plan-updated, tasks-updated, todos-updated, …). */
  onEvent?: AgentEventListener;
}

/**
 * Options for `generateText`, `streamText` or `ToolLoopAgent`, to spread into the call:
 * `generateText({ model, ...planning, prompt, stopWhen })`.
 */
export interface AiSdkPlanning {
  /** The plugins' tools as AI SDK tools. */
  readonly tools: AiTools;
  /** Appends the plugins' tail messages (the plan hint, the todo recitation) to each step's request. */
  readonly prepareStep: PrepareStepFunction<AiTools>;
  /** Shows each plugin every tool result of the step that just ended (`afterTool`). */
  readonly onStepFinish: (step: StepResult<AiTools>) => Promise<void>;
  /** `system` from the options followed by the plugins' instructions; absent when both are empty. */
  readonly system?: string;
}

/**
 * Puts Stepwise planning plugins inside an AI SDK agent loop. What maps: tools, `instructions`,
 * `beforeModel` (through `prepareStep`, so tail messages are never stored in the conversation),
 * `afterTool` (through `onStepFinish`) and `attach` (events go to `onEvent`).
 *
 * What does not: `afterModel` never runs, because the AI SDK executes a step's tool calls as soon
 * as the model returns them, with no hook in between, so a plugin cannot refuse or rewrite a call
 * (the todo list's refusal of parallel `write_todos` calls does not happen) nor ask for one more
 * turn with `continueWith`. `rewriteMemory` never runs either: `prepareStep` can only change the
 * request of one step, not the conversation the SDK keeps. Use one bundle for one run at a time.
 */
export function aiSdkPlanning(plugins: readonly Plugin[], opts: AiSdkPlanningOptions = {}): AiSdkPlanning {
  const agentName = opts.agentName ?? "ai-sdk-agent";
  const bridge = new PluginBridge(plugins, { agentName, ...(opts.onEvent ? { onEvent: opts.onEvent } : {}) });
  const system = bridge.systemText(opts.system);
  // The run's first request: later steps' conversation is this plus the SDK's response messages.
  let initialMessages: ModelMessage[] = [];

  const prepareStep: PrepareStepFunction<AiTools> = async ({ messages, stepNumber }) => {
    if (stepNumber === 0) {
      initialMessages = messages;
      bridge.startRun();
    }
    const memory = fromModelMessages(messages);
    const request: Message[] = [...(system ? [{ role: "system" as const, content: system }] : []), ...memory];
    const tail = await bridge.tailMessages({ agentName, step: stepNumber + 1, memory }, request);
    return tail.length > 0 ? { messages: [...messages, ...tail.map(toModelMessage)] } : undefined;
  };

  const onStepFinish = async (step: StepResult<AiTools>): Promise<void> => {
    const memory = fromModelMessages([...initialMessages, ...step.response.messages]);
    const context = { agentName, step: step.stepNumber + 1, memory };
    for (const outcome of toolOutcomes(step)) await bridge.afterTool(context, outcome.call, outcome.result, outcome.refused);
  };

  const tools: AiTools = {};
  for (const tool of bridge.tools) tools[tool.name] = toAiSdkTool(tool, agentName);

  return { tools, prepareStep, onStepFinish, ...(system ? { system } : {}) };
}

/**
 * The model sees the very JSON Schema a Stepwise agent would send; `invoke` does the validating,
 * so its forgiving repairs and its messages naming the wrong argument apply here too. An error
 * result is thrown, which the SDK hands to the model as an error output.
 */
function toAiSdkTool(tool: Tool, agentName: string) {
  return aiTool({
    description: tool.description,
    inputSchema: jsonSchema<unknown>(tool.parameters),
    async execute(input, { toolCallId, abortSignal }) {
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
