import type { Plan } from "./plan.js";

/** Every hint reaches the model wrapped in this tag, as the last (user-role) message of a request. */
export function wrapHint(text: string): string {
  return `<system-hint>${text}</system-hint>`;
}

const UNRELATED_REQUEST =
  "- If the user asks for something unrelated to the plan, handle that first and come back to the plan afterwards.";
const ASK_OR_REVISE = [
  "- Ask the user when you need more information.",
  "- Change the plan with 'revise_current_plan' if it no longer fits the work.",
];

function showPlan(plan: Plan): string {
  return `The current plan:\n\`\`\`\n${plan.toMarkdown()}\n\`\`\`\n`;
}

/**
 * The default hint: what the model should know about the plan before each call, and what it may do
 * next, naming the tool to call. Five cases: no plan; nothing started; one subtask in progress;
 * some finished and none in progress; every subtask finished.
 */
export function defaultPlanToHint(plan: Plan | null): string {
  if (plan === null) {
    return (
      "There is no plan yet. If the user's request is complex (building a website, an app or a game) or needs " +
      "a long chain of steps (researching a topic across several sources), call 'create_plan' first and then " +
      "work through the plan. If the request is simple, do it directly without a plan."
    );
  }
  const subtasks = plan.subtasks;
  const inProgress = subtasks.findIndex((s) => s.state === "in_progress");
  if (inProgress >= 0) {
    const current = subtasks[inProgress]!;
    return [
      `${showPlan(plan)}Subtask ${inProgress}, '${current.name}', is in progress. Its details:`,
      "```",
      current.toMarkdown(true),
      "```",
      "What you can do next:",
      "- Keep working on this subtask until you have its outcome.",
      `- Once it is finished, call 'finish_subtask' with subtask_idx=${inProgress} and the concrete outcome as subtask_outcome.`,
      ...ASK_OR_REVISE,
      UNRELATED_REQUEST,
    ].join("\n");
  }
  if (subtasks.every((s) => s.state === "todo")) {
    return [
      `${showPlan(plan)}No subtask has started yet. What you can do next:`,
      "- Start the first subtask: call 'update_subtask_state' with subtask_idx=0 and state='in_progress', then work on it.",
      "- If the first subtask cannot be done yet, work out what is missing: ask the user, or change the plan with 'revise_current_plan'.",
      UNRELATED_REQUEST,
      "- If the user no longer wants this plan, confirm with them, then call 'finish_plan' with state='abandoned'.",
    ].join("\n");
  }
  const next = subtasks.findIndex((s) => s.state === "todo");
  if (next < 0) {
    return [
      `${showPlan(plan)}Every subtask is done or abandoned. What you can do next:`,
      "- Call 'finish_plan' with state='done' and the plan's concrete outcome, then tell the user what was done and what came out of it.",
      "- Change the plan with 'revise_current_plan' if more work is needed.",
      UNRELATED_REQUEST,
    ].join("\n");
  }
  const finished = subtasks.filter((s) => s.state === "done" || s.state === "abandoned").length;
  return [
    `${showPlan(plan)}${finished} of ${subtasks.length} subtasks are done or abandoned and none is in progress. ` +
      `The next one is subtask ${next}, '${subtasks[next]!.name}'. What you can do next:`,
    `- Start it: call 'update_subtask_state' with subtask_idx=${next} and state='in_progress', then work on it.`,
    ...ASK_OR_REVISE,
    UNRELATED_REQUEST,
  ].join("\n");
}

/**
 * Shown once, on the request right after a plan is finished. Without it that request would carry
 * the no-plan hint, which nudges the model to plan the same request again instead of answering.
 */
export function finishedPlanHint(plan: Plan): string {
  return (
    `The plan '${plan.name}' has just been finished as ${plan.state}` +
    (plan.outcome ? `, with this outcome: ${plan.outcome}` : "") +
    ". Now answer the user: summarise what was done and what came out of it. Call 'create_plan' again only " +
    "if the user asks for new work that needs a plan."
  );
}
