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
 * The call a hint recommends, in a form code can make: the arguments it fixes, and the ones the
 * model writes itself (an outcome), each with what to write. The hint's sentence is rendered from
 * it, so what the model reads and what a test can try are the same call.
 */
export type RecommendedCall = {
  tool: string;
  args: Record<string, string | number>;
  modelWrites: Record<string, string>;
};

/** What the default hint says about a plan, and the one call it recommends (none without a plan). */
export type PlanGuidance = { text: string; next: RecommendedCall | null };

/** "call 'tool' with a=1, b='x' and the outcome as c": the sentence the hint uses for a call. */
export function describeRecommendedCall(call: RecommendedCall): string {
  const parts = [
    ...Object.entries(call.args).map(([key, value]) => `${key}=${typeof value === "number" ? value : `'${value}'`}`),
    ...Object.entries(call.modelWrites).map(([key, what]) => `${what} as ${key}`),
  ];
  const listed = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "");
  return `call '${call.tool}'${listed ? ` with ${listed}` : ""}`;
}

const startSubtask = (index: number): RecommendedCall => ({
  tool: "update_subtask_state",
  args: { subtask_idx: index, state: "in_progress" },
  modelWrites: {},
});

/**
 * The default guidance: what the model should know about the plan before each call, and what it may
 * do next, naming the tool to call. Five cases: no plan; nothing started; one subtask in progress;
 * some finished and none in progress; every subtask finished.
 */
export function planGuidance(plan: Plan | null): PlanGuidance {
  if (plan === null) {
    const text =
      "There is no plan yet. If the user's request is complex (building a website, an app or a game) or needs " +
      "a long chain of steps (researching a topic across several sources), call 'create_plan' first and then " +
      "work through the plan. If the request is simple, do it directly without a plan.";
    return { text, next: null };
  }
  const subtasks = plan.subtasks;
  const inProgress = subtasks.findIndex((s) => s.state === "in_progress");
  if (inProgress >= 0) {
    const current = subtasks[inProgress]!;
    const next: RecommendedCall = {
      tool: "finish_subtask",
      args: { subtask_idx: inProgress },
      modelWrites: { subtask_outcome: "the concrete outcome" },
    };
    const text = [
      `${showPlan(plan)}Subtask ${inProgress}, '${current.name}', is in progress. Its details:`,
      "```",
      current.toMarkdown(true),
      "```",
      "What you can do next:",
      "- Keep working on this subtask until you have its outcome.",
      `- Once it is finished, ${describeRecommendedCall(next)}.`,
      ...ASK_OR_REVISE,
      UNRELATED_REQUEST,
    ].join("\n");
    return { text, next };
  }
  if (subtasks.every((s) => s.state === "todo")) {
    const next = startSubtask(0);
    const text = [
      `${showPlan(plan)}No subtask has started yet. What you can do next:`,
      `- Start the first subtask: ${describeRecommendedCall(next)}, then work on it.`,
      "- If the first subtask cannot be done yet, work out what is missing: ask the user, or change the plan with 'revise_current_plan'.",
      UNRELATED_REQUEST,
      "- If the user no longer wants this plan, confirm with them, then call 'finish_plan' with state='abandoned'.",
    ].join("\n");
    return { text, next };
  }
  const todo = subtasks.findIndex((s) => s.state === "todo");
  if (todo < 0) {
    const next: RecommendedCall = { tool: "finish_plan", args: { state: "done" }, modelWrites: { outcome: "the plan's concrete outcome" } };
    const text = [
      `${showPlan(plan)}Every subtask is done or abandoned. What you can do next:`,
      `- Finish the plan: ${describeRecommendedCall(next)}, then tell the user what was done and what came out of it.`,
      "- Change the plan with 'revise_current_plan' if more work is needed.",
      UNRELATED_REQUEST,
    ].join("\n");
    return { text, next };
  }
  const finished = subtasks.filter((s) => s.state === "done" || s.state === "abandoned").length;
  const next = startSubtask(todo);
  const text = [
    `${showPlan(plan)}${finished} of ${subtasks.length} subtasks are done or abandoned and none is in progress. ` +
      `The next one is subtask ${todo}, '${subtasks[todo]!.name}'. What you can do next:`,
    `- Start it: ${describeRecommendedCall(next)}, then work on it.`,
    ...ASK_OR_REVISE,
    UNRELATED_REQUEST,
  ].join("\n");
  return { text, next };
}

/** The default hint's text (a plan notebook's `planToHint` unless one is given). */
export function defaultPlanToHint(plan: Plan | null): string {
  return planGuidance(plan).text;
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
