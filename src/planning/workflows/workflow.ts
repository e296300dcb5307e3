import type { WorkflowTrace } from "./workflow-trace.js";

export type WorkflowResult = { answer: string; trace: WorkflowTrace };

export type WorkflowRunOptions = { signal?: AbortSignal };

/** A plan-then-execute workflow: give it a task, get the answer and how it was reached. */
export interface Workflow {
  run(task: string, opts?: WorkflowRunOptions): Promise<WorkflowResult>;
}
