import { z } from "zod";
import { repairArguments } from "../../core/argument-repair.js";
import { boundedText } from "../../core/bounded-quote.js";
import { defineTool, type Tool } from "../../core/tool.js";
import { formatTimestamp } from "./plan-markdown.js";
import { planEditNote, type PlanProposal } from "./plan-edit-description.js";
import type { PlanNotebook } from "./plan-notebook.js";
import { SETTABLE_SUBTASK_STATES, type Plan } from "./plan.js";
import {
  ARGUMENT_DESCRIPTIONS as ARG,
  CREATE_PLAN_APPROVAL_NOTE,
  DONE_NEEDS_FINISH_SUBTASK,
  TOOL_DESCRIPTIONS,
} from "./tool-descriptions.js";

const subtaskIdx = z.number().int().describe(ARG.subtaskIdx);

const newSubtask = z.object({
  name: z.string().describe(ARG.subtaskName),
  description: z.string().describe(ARG.subtaskDescription),
  expected_outcome: z.string().describe(ARG.subtaskExpectedOutcome),
});

const newPlan = z.object({
  name: z.string().describe(ARG.planName),
  description: z.string().describe(ARG.planDescription),
  expected_outcome: z.string().describe(ARG.planExpectedOutcome),
  subtasks: z.array(newSubtask).describe(ARG.subtasks),
});

const subtaskRevision = z
  .object({
    name: z.string().optional().describe(ARG.subtaskName),
    description: z.string().optional().describe(ARG.subtaskDescription),
    expected_outcome: z.string().optional().describe(ARG.subtaskExpectedOutcome),
  })
  .describe(ARG.revision);

const settableState = z
  .enum(SETTABLE_SUBTASK_STATES, { error: (issue) => (issue.input === "done" ? DONE_NEEDS_FINISH_SUBTASK : undefined) })
  .describe(ARG.subtaskState);

/** The eight model-facing tools of a notebook; each one calls the notebook method of the same name. */
export function createPlanTools(notebook: PlanNotebook): Tool[] {
  return [
    defineTool({
      name: "create_plan",
      description: notebook.approvePlans ? `${TOOL_DESCRIPTIONS.create_plan} ${CREATE_PLAN_APPROVAL_NOTE}` : TOOL_DESCRIPTIONS.create_plan,
      parameters: newPlan,
      requiresApproval: notebook.approvePlans,
      explainsEdits: true,
      async execute(args, ctx) {
        const previous = notebook.currentPlan;
        const plan = await notebook.createPlan({
          name: args.name,
          description: args.description,
          expectedOutcome: args.expected_outcome,
          subtasks: args.subtasks.map((s) => ({ name: s.name, description: s.description, expectedOutcome: s.expected_outcome })),
        });
        const archived = previous ? ` The previous plan '${previous.name}' was archived as abandoned.` : "";
        const created = `Plan '${plan.name}' is created with ${plan.subtasks.length} subtasks.${archived}`;
        if (ctx.editedFrom === undefined) return created;
        return `${created}\n${planEditNote(parseProposal(ctx.editedFrom), args, plan.toMarkdown())}`;
      },
    }),
    defineTool({
      name: "view_subtasks",
      description: TOOL_DESCRIPTIONS.view_subtasks,
      parameters: z.object({ subtask_idx: z.array(z.number().int()).min(1).describe(ARG.subtaskIndices) }),
      readOnly: true,
      execute: (args) => notebook.viewSubtasks(args.subtask_idx),
    }),
    defineTool({
      name: "update_subtask_state",
      description: TOOL_DESCRIPTIONS.update_subtask_state,
      parameters: z.object({ subtask_idx: subtaskIdx, state: settableState }),
      async execute(args) {
        const before = notebook.currentPlan?.state;
        const plan = await notebook.updateSubtaskState(args.subtask_idx, args.state);
        const subtask = plan.subtasks[args.subtask_idx]!;
        const planNote = plan.state !== before ? ` The plan is now '${plan.state}'.` : "";
        return `Subtask ${args.subtask_idx} '${subtask.name}' is now '${subtask.state}'.${planNote}`;
      },
    }),
    defineTool({
      name: "finish_subtask",
      description: TOOL_DESCRIPTIONS.finish_subtask,
      parameters: z.object({ subtask_idx: subtaskIdx, subtask_outcome: z.string().describe(ARG.subtaskOutcome) }),
      async execute(args) {
        const plan = await notebook.finishSubtask(args.subtask_idx, args.subtask_outcome);
        const done = `Subtask ${args.subtask_idx} '${plan.subtasks[args.subtask_idx]!.name}' is done.`;
        const next = plan.subtasks.findIndex((s) => s.state === "in_progress");
        if (next >= 0) return `${done} Subtask ${next} '${plan.subtasks[next]!.name}' is now in progress.`;
        return `${done} Every subtask is done or abandoned: call 'finish_plan' with the plan's outcome, then answer the user.`;
      },
    }),
    defineTool({
      name: "revise_current_plan",
      description: TOOL_DESCRIPTIONS.revise_current_plan,
      parameters: z.object({
        subtask_idx: subtaskIdx,
        action: z.enum(["add", "revise", "delete"]).describe(ARG.action),
        subtask: subtaskRevision.optional(),
      }),
      async execute(args) {
        const revision = args.subtask && {
          ...(args.subtask.name !== undefined ? { name: args.subtask.name } : {}),
          ...(args.subtask.description !== undefined ? { description: args.subtask.description } : {}),
          ...(args.subtask.expected_outcome !== undefined ? { expectedOutcome: args.subtask.expected_outcome } : {}),
        };
        const plan = await notebook.reviseCurrentPlan(args.subtask_idx, args.action, revision);
        const verb = { add: "added", revise: "revised", delete: "deleted" }[args.action];
        return `Subtask ${args.subtask_idx} is ${verb}. The plan now reads:\n${plan.toMarkdown()}`;
      },
    }),
    defineTool({
      name: "finish_plan",
      description: TOOL_DESCRIPTIONS.finish_plan,
      parameters: z.object({
        state: z.enum(["done", "abandoned"]).describe(ARG.planState),
        outcome: z.string().describe(ARG.planOutcome),
      }),
      async execute(args) {
        const plan = await notebook.finishPlan(args.state, args.outcome);
        return `Plan '${plan.name}' is finished as '${plan.state}' and archived. Now tell the user the outcome.`;
      },
    }),
    defineTool({
      name: "view_historical_plans",
      description: TOOL_DESCRIPTIONS.view_historical_plans,
      parameters: z.object({
        state: z.enum(["done", "abandoned"]).optional().describe(ARG.historyState),
        limit: z.number().int().min(1).max(MAX_HISTORY_LIMIT).optional().describe(ARG.historyLimit),
      }),
      readOnly: true,
      async execute(args) {
        return archivedPlansText(await notebook.historicalPlans(), args.state, args.limit ?? DEFAULT_HISTORY_LIMIT);
      },
    }),
    defineTool({
      name: "recover_historical_plan",
      description: TOOL_DESCRIPTIONS.recover_historical_plan,
      parameters: z.object({ plan_id: z.string().describe(ARG.planId) }),
      async execute(args) {
        const previous = notebook.currentPlan;
        const plan = await notebook.recoverHistoricalPlan(args.plan_id);
        const archived = previous ? ` The plan '${previous.name}' was archived.` : "";
        return `Plan '${plan.name}' is the current plan again.${archived}`;
      },
    }),
  ];
}

/** The model's own create_plan arguments, read as leniently as the tool reads them; null when they were no plan. */
function parseProposal(text: string): PlanProposal | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const read = repairArguments(newPlan, value);
  return read.success ? (read.data as PlanProposal) : null;
}

// The list's default view stays small however many plans pile up: the newest first, each line bounded.
const DEFAULT_HISTORY_LIMIT = 20;
const MAX_HISTORY_LIMIT = 200;
const DESCRIPTION_LIMIT = 200;

/** The newest `limit` archived plans (of `state`, when given), oldest first as stored, and what was left out. */
function archivedPlansText(all: readonly Plan[], state: "done" | "abandoned" | undefined, limit: number): string {
  if (all.length === 0) return "There are no archived plans.";
  const matching = state ? all.filter((plan) => plan.state === state) : all;
  if (matching.length === 0) return `None of the ${all.length} archived plans is ${state}.`;
  const shown = matching.slice(-limit);
  const lines = shown.map(describeArchivedPlan);
  if (shown.length === all.length) return lines.join("\n");
  const done = all.filter((plan) => plan.state === "done").length;
  const summary =
    `${all.length} archived plans (${done} done, ${all.length - done} abandoned); ` +
    `showing the ${shown.length} newest${state ? ` ${state}` : ""}. Pass state or a larger limit (up to ${MAX_HISTORY_LIMIT}) to see others.`;
  return [summary, ...lines].join("\n");
}

function describeArchivedPlan(plan: Plan): string {
  return (
    `- id: ${plan.id} | name: ${boundedText(plan.name, DESCRIPTION_LIMIT)} | created at: ${formatTimestamp(plan.createdAt)} | state: ${plan.state}\n` +
    `  description: ${boundedText(plan.description, DESCRIPTION_LIMIT)}`
  );
}
