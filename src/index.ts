// The package root only re-exports; internals stay unexported.
export type { Message, ToolCall, SystemMessage, UserMessage, AssistantMessage, ToolMessage } from "./core/messages.js";
export type { ChatModel, ModelRequest, ModelResponse, ModelStreamPart, ToolSpec, Usage } from "./core/model.js";
export { MODEL_CONTRACT_VERSION } from "./core/model.js";
export { defineTool, ToolError } from "./core/tool.js";
export type { Tool, ToolContext, ToolDefinition, ToolResult } from "./core/tool.js";
export { Toolkit } from "./core/toolkit.js";
export { Agent } from "./core/agent.js";
export type { AgentOptions, RunOptions } from "./core/agent.js";
export type { RunResult, StopReason } from "./core/run-result.js";
export { PLUGIN_CONTRACT_VERSION, PluginHosts } from "./core/plugin.js";
export type { Plugin, PluginHost, BeforeModelContext, AfterModelContext, AfterToolContext } from "./core/plugin.js";
export type { AgentEvent, AgentEventInit, AgentEventMap, AgentEventType, AgentEventListener } from "./core/events.js";
export { AGENT_STATE_VERSION } from "./core/state.js";
export type { AgentState } from "./core/state.js";
export { scriptedModel } from "./models/scripted.js";
export type { ScriptedTurn, ScriptedModel, ScriptedModelOptions } from "./models/scripted.js";
