import type { Plan } from "../planning/notebook/plan.js";
import type { Task } from "../planning/tasks/task.js";
import type { Todo } from "../planning/todos/todo.js";
import type { PlannedStep } from "../planning/workflows/workflow-trace.js";

export type ChecklistStatus = "todo" | "in_progress" | "done" | "abandoned" | "failed";

export type ChecklistItem = {
  id: string;
  label: string;
  status: ChecklistStatus;
  /** Ids of items this one waits for (board dependencies, DAG edges). */
  blockedBy: string[];
  owner?: string | null;
  detail?: string;
};

/** Any strategy's plan, reduced to what a person looks at: a titled checklist, maybe a graph. */
export type Checklist = { kind: "plan" | "tasks" | "todos" | "workflow"; title: string; items: ChecklistItem[] };

declare module "../core/events.js" {
  interface AgentEventMap {
    /** The run's plan as a checklist, after any change: what the CLI and the viewer draw. */
    "checklist-updated": { checklist: Checklist };
  }
}

export function planChecklist(plan: Plan | null): Checklist | null {
  if (!plan) return null;
  return {
    kind: "plan",
    title: plan.name,
    // Numbered from 1, as every human-facing view counts (the model's subtask_idx stays 0-based).
    items: plan.subtasks.map((subtask, index) => ({
      id: String(index + 1),
      label: subtask.name,
      status: subtask.state,
      blockedBy: [],
      ...(subtask.outcome ? { detail: subtask.outcome } : {}),
    })),
  };
}

const TASK_STATUS: Record<Task["state"], ChecklistStatus> = { pending: "todo", in_progress: "in_progress", completed: "done" };

export function tasksChecklist(tasks: readonly Task[]): Checklist | null {
  if (tasks.length === 0) return null;
  return {
    kind: "tasks",
    title: "Task board",
    items: tasks.map((task) => ({
      id: task.id,
      label: task.subject,
      status: TASK_STATUS[task.state],
      blockedBy: [...task.blockedBy],
      owner: task.owner,
    })),
  };
}

const TODO_STATUS: Record<Todo["status"], ChecklistStatus> = { pending: "todo", in_progress: "in_progress", completed: "done" };

export function todosChecklist(todos: readonly Todo[]): Checklist | null {
  if (todos.length === 0) return null;
  return {
    kind: "todos",
    title: "Todo list",
    items: todos.map((todo, index) => ({ id: String(index + 1), label: todo.content, status: TODO_STATUS[todo.status], blockedBy: [] })),
  };
}

/** A workflow's steps; `finished` maps step ids to whether they failed. */
export function workflowChecklist(
  title: string,
  steps: readonly PlannedStep[],
  running: ReadonlySet<string>,
  finished: ReadonlyMap<string, boolean>,
): Checklist {
  return {
    kind: "workflow",
    title,
    items: steps.map((step) => ({
      id: step.id,
      label: step.description,
      status: finished.has(step.id) ? (finished.get(step.id) ? "failed" : "done") : running.has(step.id) ? "in_progress" : "todo",
      blockedBy: [...step.dependsOn],
    })),
  };
}
