// stepwise/planning: the planning plugins and the workflows, without stores, integrations or the CLI.
export type { WorkUnit } from "./work-units.js";
export { todoList, TODO_STATE_VERSION } from "./todos/todo-list.js";
export type { TodoList, TodoListOptions } from "./todos/todo-list.js";
export type { Todo, TodoStatus } from "./todos/todo.js";
export { PlanNotebook } from "./notebook/plan-notebook.js";
export type { PlanNotebookOptions, PlanNotebookState, PlanChange, PlanChangeHook, SubTaskRevision } from "./notebook/plan-notebook.js";
export { Plan, SubTask, PLAN_STATES, SETTABLE_SUBTASK_STATES } from "./notebook/plan.js";
export type { PlanData, SubTaskData, PlanInput, SubTaskInput, PlanState, SettableSubTaskState } from "./notebook/plan.js";
export { defaultPlanToHint } from "./notebook/hints.js";
export type { RecommendedCall } from "./notebook/hints.js";
export type { PlanStore, PlanStoreState, PlanStorage } from "./notebook/plan-store.js";
export { MemoryPlanStore } from "./notebook/memory-plan-store.js";
export { TaskBoard, TASK_BOARD_STATE_VERSION } from "./tasks/task-board.js";
export type { TaskBoardOptions, TaskBoardState } from "./tasks/task-board.js";
export { TaskRuleError } from "./tasks/task.js";
export { TaskLeaseError, DEFAULT_LEASE_MS } from "./tasks/task-lease.js";
export type { TaskLease, ClaimedTask, TaskClaim, ClaimOptions, FencedWrite } from "./tasks/task-lease.js";
export type { Task, TaskState, TaskDraft, TaskChange, TaskImport, TaskBoardChange } from "./tasks/task.js";
export type { TaskStore, TaskStoreState, TaskBoardSummary } from "./tasks/task-store.js";
export { MemoryTaskStore } from "./tasks/memory-task-store.js";
export { TaskReminder } from "./tasks/task-reminder.js";
export { runWorkerPool } from "./tasks/worker-pool.js";
export type { TaskWorker, WorkerPoolOptions, WorkerPoolReport } from "./tasks/worker-pool.js";
export { contextFolding } from "./folding/context-folding.js";
export type { ContextFolding, ContextFoldingOptions } from "./folding/context-folding.js";
export type { ContextFoldedEvent } from "./folding/folding-events.js";
export { FOLDING_STATE_VERSION } from "./folding/folding-state.js";
export type { FoldingState, FoldingStats } from "./folding/folding-state.js";
export { PlanTool } from "./workflows/plan-tool/plan-tool.js";
export type { PlanToolOptions } from "./workflows/plan-tool/plan-tool.js";
export { PlanAndExecute } from "./workflows/plan-and-execute/plan-and-execute.js";
export type { PlanAndExecuteOptions } from "./workflows/plan-and-execute/plan-and-execute.js";
export { Rewoo } from "./workflows/rewoo/rewoo.js";
export type { RewooOptions } from "./workflows/rewoo/rewoo.js";
export type { RewooStep } from "./workflows/rewoo/rewoo-plan-parser.js";
export { LLMCompiler } from "./workflows/llm-compiler/llm-compiler.js";
export type { LLMCompilerOptions } from "./workflows/llm-compiler/llm-compiler.js";
export { CompilerPlanParser } from "./workflows/llm-compiler/compiler-plan-parser.js";
export type { CompilerTask, CompilerPlanParserOptions, PlanParseEvent } from "./workflows/llm-compiler/compiler-plan-parser.js";
export { TaskDagScheduler } from "./workflows/llm-compiler/task-dag-scheduler.js";
export type { DagTask, DagTaskRunner } from "./workflows/llm-compiler/task-dag-scheduler.js";
export type { PlanFallback, WorkflowEventType } from "./workflows/workflow-events.js";
export { WORKFLOW_STATE_VERSION } from "./workflows/workflow.js";
export type {
  Workflow,
  WorkflowOutcome,
  WorkflowResult,
  WorkflowRunOptions,
  WorkflowState,
  WorkflowStopReason,
} from "./workflows/workflow.js";
export type { WorkflowKind, WorkflowTrace, PlanRound, PlannedStep, StepRecord } from "./workflows/workflow-trace.js";
export type { PlanDecision, PlanReview } from "./workflows/plan-review.js";
