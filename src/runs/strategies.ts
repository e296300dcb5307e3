import { Agent, type AgentOptions } from "../core/agent.js";
import { askUserTool } from "../core/ask-user.js";
import type { ChatModel } from "../core/model.js";
import type { PermissionPolicy } from "../core/permissions.js";
import type { Plugin } from "../core/plugin.js";
import type { Tool } from "../core/tool.js";
import { contextFolding } from "../planning/folding/context-folding.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { TaskBoard } from "../planning/tasks/task-board.js";
import type { TaskStore } from "../planning/tasks/task-store.js";
import { todoList } from "../planning/todos/todo-list.js";
import { LLMCompiler } from "../planning/workflows/llm-compiler/llm-compiler.js";
import { PlanAndExecute } from "../planning/workflows/plan-and-execute/plan-and-execute.js";
import { PlanTool } from "../planning/workflows/plan-tool/plan-tool.js";
import { Rewoo } from "../planning/workflows/rewoo/rewoo.js";
import type { WorkflowState } from "../planning/workflows/workflow.js";
import type { PlanStore } from "../planning/notebook/plan-store.js";
import { AgentSession } from "./agent-session.js";
import { checkpointBeforeTools } from "../core/checkpoint-before-tools.js";
import { planChecklist, tasksChecklist, todosChecklist } from "./checklist.js";
import { RunInputError } from "./run-input-error.js";
import type { StrategySession } from "./strategy-session.js";
import { WorkflowProgress } from "./workflow-progress.js";
import { WorkflowSession } from "./workflow-session.js";

/** The planning strategies (what `stepwise run --strategy` offers). */
export const STRATEGIES = ["notebook", "tasks", "todos", "plan-tool", "plan-execute", "rewoo", "compiler"] as const;
/** Plain ReAct: the same agent, tools and prompt with no planning plugin; the baseline `stepwise eval` measures the strategies against. */
export const BASELINE_STRATEGY = "react";
export type StrategyName = (typeof STRATEGIES)[number] | typeof BASELINE_STRATEGY;

/** The part a model plays in a strategy; a real model plays them all, the offline demo has a script for each. */
export type ModelRole = "agent" | "planner" | "executor" | "solver" | "joiner";
export type ModelsByRole = (role: ModelRole) => ChatModel;

export type StrategyContext = {
  runId: string;
  models: ModelsByRole;
  /** The workspace tools (read-only and write). */
  tools: Tool[];
  /** Where the notebook keeps the run's plans; without one they live in its checkpoint. */
  planStore?: () => PlanStore;
  /** Where the board lives: the SQLite file by default, PostgreSQL with --store. */
  taskStore: () => TaskStore;
  permissions?: PermissionPolicy;
  /** New plans wait for the user: the run pauses on them (create_plan, the plan tool, a workflow's plan). */
  approvePlans?: boolean;
  /** Saves the run's checkpoint now: an agent's before its tool calls run, a workflow's after each step. */
  checkpoint: () => Promise<void>;
  maxSteps?: number;
  /** Fold finished plan units out of the context past this many tokens (default: contextFolding's). */
  contextBudget?: number;
  /**
   * Where the planning plugins draw new ids and the time (random UUIDs and the system clock by
   * default). A durable engine that replays the run (Restate) gives ones that come out the same on
   * every replay, so the plans it rebuilds match the ones it journaled.
   */
  ids?: () => string;
  clock?: () => Date;
};

const SYSTEM_PROMPT = `You are Stepwise, an agent that carries out tasks in a workspace folder with the tools you are given.
Work step by step, keep your plan up to date as you go, and finish with a short answer for the user that says
what you did and where the results are.`;

export function parseStrategy(name: string): StrategyName {
  if (name === BASELINE_STRATEGY || (STRATEGIES as readonly string[]).includes(name)) return name as StrategyName;
  throw new RunInputError(`unknown strategy "${name}"; use one of: ${[...STRATEGIES, BASELINE_STRATEGY].join(", ")}`);
}

export function createSession(strategy: StrategyName, ctx: StrategyContext): StrategySession {
  // Folding comes after the planning plugin so it counts the plan's tail message in the request size.
  const folding = (): Plugin => contextFolding(ctx.contextBudget ? { budgetTokens: ctx.contextBudget } : {});
  const agentOptions = (plugins: Plugin[], tools: Tool[]): AgentOptions => ({
    name: strategy,
    systemPrompt: SYSTEM_PROMPT,
    model: ctx.models("agent"),
    tools: [...tools, askUserTool()],
    // Last, so the checkpoint holds the calls as the other plugins left them.
    plugins: [...plugins, folding(), checkpointBeforeTools(ctx.checkpoint)],
    ...(ctx.permissions ? { permissions: ctx.permissions } : {}),
    ...(ctx.maxSteps ? { maxSteps: ctx.maxSteps } : {}),
  });
  // Every workflow waits the way agents do: its steps' calls under the permission policy, its plans when asked.
  const workflowApproval = { ...(ctx.permissions ? { permissions: ctx.permissions } : {}), ...(ctx.approvePlans ? { approvePlans: true } : {}) };
  switch (strategy) {
    case "react":
      return new AgentSession(strategy, new Agent(agentOptions([], ctx.tools)), { checklist: async () => null, save: ctx.checkpoint });
    case "notebook": {
      const notebook = new PlanNotebook({
        ...(ctx.planStore ? { store: ctx.planStore() } : {}),
        approvePlans: ctx.approvePlans === true,
        ...(ctx.ids ? { ids: ctx.ids } : {}),
        ...(ctx.clock ? { clock: ctx.clock } : {}),
      });
      const agent = new Agent(agentOptions([notebook], ctx.tools));
      return new AgentSession(strategy, agent, { checklist: async () => {
        await notebook.ready();
        return planChecklist(notebook.currentPlan);
      }, save: ctx.checkpoint });
    }
    case "tasks": {
      const board = new TaskBoard({ store: ctx.taskStore(), agentName: strategy });
      const agent = new Agent(agentOptions([board], ctx.tools));
      return new AgentSession(strategy, agent, {
        checklist: async () => tasksChecklist(await board.list()),
        save: ctx.checkpoint,
        close: () => board.store.close(),
      });
    }
    case "todos": {
      const todos = todoList();
      const agent = new Agent(agentOptions([todos], ctx.tools));
      return new AgentSession(strategy, agent, { checklist: async () => todosChecklist(todos.todos), save: ctx.checkpoint });
    }
    case "plan-tool": {
      const planTool = new PlanTool({
        model: ctx.models("agent"),
        plannerModel: ctx.models("planner"),
        executorModel: ctx.models("executor"),
        tools: ctx.tools,
        ...workflowApproval,
      });
      const agent = new Agent(agentOptions([planTool], ctx.tools));
      // The plan tool's workflow events reach the agent it is attached to.
      const progress = new WorkflowProgress();
      agent.on(progress.observe);
      return new AgentSession(strategy, agent, {
        checklist: async () => progress.checklist(),
        save: ctx.checkpoint,
        // A plan paused inside the plan call holds the steps it planned and finished before.
        restored: (state) => {
          const paused = Object.values(state.pending?.nested ?? {})[0]?.state as WorkflowState | undefined;
          if (paused?.trace) progress.restore(paused.trace);
        },
      });
    }
    case "plan-execute":
      return new WorkflowSession(
        strategy,
        (onEvent) =>
          new PlanAndExecute({
            model: ctx.models("planner"),
            executorModel: ctx.models("executor"),
            tools: ctx.tools,
            executorPlugins: () => [folding()],
            onEvent,
            ...workflowApproval,
          }),
        ctx.checkpoint,
      );
    case "rewoo":
      return new WorkflowSession(
        strategy,
        (onEvent) =>
          new Rewoo({
            model: ctx.models("planner"),
            executorModel: ctx.models("executor"),
            solverModel: ctx.models("solver"),
            tools: ctx.tools,
            onEvent,
            ...workflowApproval,
          }),
        ctx.checkpoint,
      );
    case "compiler":
      return new WorkflowSession(
        strategy,
        (onEvent) => new LLMCompiler({ model: ctx.models("planner"), joinerModel: ctx.models("joiner"), tools: ctx.tools, onEvent, ...workflowApproval }),
        ctx.checkpoint,
      );
  }
}
