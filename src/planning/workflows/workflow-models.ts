import type { ChatModel } from "../../core/model.js";

/** The parts a model plays in a workflow; each workflow has some of them. */
export type WorkflowRole = "planner" | "executor" | "summarizer" | "solver" | "joiner";

/**
 * One naming scheme for every workflow's models: `model` plays every role, and `<role>Model`
 * (`plannerModel`, `executorModel`, `summarizerModel`, `solverModel`, `joinerModel`) plays that one
 * role instead.
 */
export type WorkflowModels<R extends WorkflowRole> = { model: ChatModel } & { [K in R as `${K}Model`]?: ChatModel };

/** The model that plays `role`: its own, else `model`. */
export function roleModel<R extends WorkflowRole>(models: WorkflowModels<R>, role: R): ChatModel {
  return (models as Partial<Record<`${WorkflowRole}Model`, ChatModel>>)[`${role}Model`] ?? models.model;
}
