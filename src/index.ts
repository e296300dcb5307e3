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
export type { Plugin, PluginHost, TurnContext, BeforeModelContext, AfterModelContext, AfterToolContext } from "./core/plugin.js";
export type { AgentEvent, AgentEventInit, AgentEventMap, AgentEventType, AgentEventListener, EventParent, EventScope, EventStamp } from "./core/events.js";
export type { WorkUnit } from "./planning/work-units.js";
export { AGENT_STATE_VERSION } from "./core/state.js";
export type { AgentState } from "./core/state.js";
export { askUserTool } from "./core/ask-user.js";
export type { ApprovalDecision, ApprovalDecisions, PendingCall, PendingTurn } from "./core/approval.js";
export type { PermissionDecision, PermissionPolicy, PermissionRule } from "./core/permissions.js";
export { scriptedModel } from "./models/scripted.js";
export type { ScriptedTurn, ScriptedModel, ScriptedModelOptions } from "./models/scripted.js";
export { todoList, TODO_STATE_VERSION } from "./planning/todos/todo-list.js";
export type { TodoList, TodoListOptions } from "./planning/todos/todo-list.js";
export type { Todo, TodoStatus } from "./planning/todos/todo.js";
export { PlanNotebook } from "./planning/notebook/plan-notebook.js";
export type { PlanNotebookOptions, PlanNotebookState, PlanChange, PlanChangeHook, SubTaskRevision } from "./planning/notebook/plan-notebook.js";
export { Plan, SubTask, PLAN_STATES, SETTABLE_SUBTASK_STATES } from "./planning/notebook/plan.js";
export type { PlanData, SubTaskData, PlanInput, SubTaskInput, PlanState, SettableSubTaskState } from "./planning/notebook/plan.js";
export { defaultPlanToHint } from "./planning/notebook/hints.js";
export type { PlanStorage } from "./planning/notebook/plan-storage.js";
export { MemoryPlanStorage } from "./planning/notebook/memory-plan-storage.js";
export { SqlitePlanStorage } from "./stores/sqlite-plan-storage.js";
export type { SqlitePlanStorageOptions } from "./stores/sqlite-plan-storage.js";
export { TaskBoard, TASK_BOARD_STATE_VERSION } from "./planning/tasks/task-board.js";
export type { TaskBoardOptions, TaskBoardState } from "./planning/tasks/task-board.js";
export { TaskRuleError } from "./planning/tasks/task.js";
export type { Task, TaskState, TaskDraft, TaskChange, TaskImport, TaskBoardChange } from "./planning/tasks/task.js";
export type { TaskStore, TaskStoreState } from "./planning/tasks/task-store.js";
export { MemoryTaskStore } from "./planning/tasks/memory-task-store.js";
export { TaskReminder } from "./planning/tasks/task-reminder.js";
export { runWorkerPool } from "./planning/tasks/worker-pool.js";
export type { TaskWorker, WorkerPoolOptions, WorkerPoolReport } from "./planning/tasks/worker-pool.js";
export { SqliteTaskStore } from "./stores/sqlite-task-store.js";
export { PostgresTaskStore } from "./stores/postgres-task-store.js";
export type { PostgresTaskStoreOptions } from "./stores/postgres-task-store.js";
export { createMcpServer, serveMcpStdio } from "./integrations/mcp-server.js";
export type { McpServerOptions, RunningMcpServer } from "./integrations/mcp-server.js";
export { startMcpHttpServer } from "./integrations/mcp-http-server.js";
export type { McpHttpServer, McpHttpServerOptions, McpSessionCloseReason, McpSessionEvent, McpSessionInfo } from "./integrations/mcp-http-server.js";
export { contextFolding } from "./planning/folding/context-folding.js";
export type { ContextFolding, ContextFoldingOptions } from "./planning/folding/context-folding.js";
export type { ContextFoldedEvent } from "./planning/folding/folding-events.js";
export { FOLDING_STATE_VERSION } from "./planning/folding/folding-state.js";
export type { FoldingState, FoldingStats } from "./planning/folding/folding-state.js";
export { openAICompatibleModel } from "./models/openai-compatible.js";
export type { OpenAICompatibleOptions } from "./models/openai-compatible.js";
export { anthropicModel } from "./models/anthropic.js";
export type { AnthropicModelOptions } from "./models/anthropic.js";
export { aiSdkModel } from "./models/ai-sdk.js";
export type { AiSdkModelOptions } from "./models/ai-sdk.js";
export { resolveModel, MODEL_PROVIDERS } from "./models/model-spec.js";
export type { ModelProvider, ResolveModelOptions } from "./models/model-spec.js";
export { ModelError } from "./models/model-error.js";
export type { ModelErrorKind, ModelErrorDetails } from "./models/model-error.js";
export type { RetryOptions } from "./models/retry.js";
export { workspaceTools, readOnlyWorkspaceTools } from "./tools/workspace-tools.js";
export type { WorkspaceToolsOptions } from "./tools/workspace-tools.js";
export { DEFAULT_WORKSPACE_LIMITS } from "./tools/workspace-limits.js";
export type { WorkspaceLimits } from "./tools/workspace-limits.js";
export { mcpTools } from "./integrations/mcp-tools.js";
export type { McpTools, McpServerSpec, McpStdioServerSpec, McpHttpServerSpec } from "./integrations/mcp-tools.js";
export { aiSdkPlanning } from "./integrations/ai-sdk-planning.js";
export { openTelemetry } from "./integrations/open-telemetry.js";
export type { OpenTelemetryOptions, OpenTelemetryPlugin } from "./integrations/open-telemetry.js";
export type { AiSdkPlanning, AiSdkPlanningOptions, AiTools } from "./integrations/ai-sdk-planning.js";
export { PlanTool } from "./planning/workflows/plan-tool.js";
export type { PlanToolOptions } from "./planning/workflows/plan-tool.js";
export { PlanAndExecute } from "./planning/workflows/plan-and-execute.js";
export type { PlanAndExecuteOptions } from "./planning/workflows/plan-and-execute.js";
export { Rewoo } from "./planning/workflows/rewoo.js";
export type { RewooOptions } from "./planning/workflows/rewoo.js";
export type { RewooStep } from "./planning/workflows/rewoo-plan-parser.js";
export { LLMCompiler } from "./planning/workflows/llm-compiler.js";
export type { LLMCompilerOptions } from "./planning/workflows/llm-compiler.js";
export { CompilerPlanParser } from "./planning/workflows/compiler-plan-parser.js";
export type { CompilerTask, CompilerPlanParserOptions, PlanParseEvent } from "./planning/workflows/compiler-plan-parser.js";
export { TaskDagScheduler } from "./planning/workflows/task-dag-scheduler.js";
export type { DagTask, DagTaskRunner } from "./planning/workflows/task-dag-scheduler.js";
export type { WorkflowEventType } from "./planning/workflows/workflow-events.js";
export type {
  Workflow,
  WorkflowKind,
  WorkflowResult,
  WorkflowRunOptions,
  WorkflowTrace,
  PlanRound,
  PlannedStep,
  StepRecord,
} from "./planning/workflows/workflow-trace.js";
export { startViewer } from "./web/viewer-server.js";
export type { Viewer, ViewerOptions } from "./web/viewer-server.js";
export type { EventStreamStat } from "./web/run-event-stream.js";
export type { PlanApprover, PlanDecision } from "./planning/workflows/plan-approval.js";
export type { PlanReview } from "./planning/workflows/workflow-trace.js";
export type { TaskBoardSubscription } from "./stores/postgres-task-store.js";
