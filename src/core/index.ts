// The runtime: messages, the model and plugin contracts, tools, the agent, events, saved state, approvals.
export type { Message, ToolCall, SystemMessage, UserMessage, AssistantMessage, ToolMessage } from "./messages.js";
export type { ChatModel, ModelRequest, ModelResponse, ModelStreamPart, ToolSpec, Usage } from "./model.js";
export { applyRequestDelta, RequestDeltas, type RequestDelta } from "./request-delta.js";
export { defineTool, ToolError, ToolPause } from "./tool.js";
export type { Tool, ToolContext, ToolDefinition, ToolPaused, ToolResult } from "./tool.js";
export { Toolkit } from "./toolkit.js";
export { Agent } from "./agent.js";
export type { AgentOptions, RunOptions } from "./agent.js";
export type { RunResult, StopReason } from "./run-result.js";
export { PluginHosts } from "./plugin.js";
export type { Plugin, PluginHost, TurnContext, BeforeModelContext, AfterModelContext, AfterToolContext } from "./plugin.js";
export type { AgentEvent, AgentEventInit, AgentEventMap, AgentEventType, AgentEventListener, EventParent, EventScope, EventStamp } from "./events.js";
export { AGENT_STATE_VERSION } from "./state.js";
export type { AgentState } from "./state.js";
export { askUserTool } from "./ask-user.js";
export type { ApprovalDecision, ApprovalDecisions, PendingCall, PendingTurn } from "./approval.js";
export { DecisionsError } from "./approval.js";
export type { PermissionDecision, PermissionPolicy, PermissionRule } from "./permissions.js";
