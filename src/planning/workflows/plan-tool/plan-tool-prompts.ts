// Everything the plan tool's models read. Prompts are code: plan-tool-prompts.test.ts checks what each must say.
import { planRejectedAnswer, rejectedPlanFeedback } from "../plan-approval-prompts.js";
import type { PlanReview } from "../plan-review.js";

export const PLAN_TOOL_NAME = "plan";

export const PLAN_TOOL_DESCRIPTION = [
  "Break a complex, multi-step task into subtasks and carry them out one by one, each in a fresh helper",
  "agent that has your working tools. A planner first explores with read-only tools, then writes the",
  "subtasks. Returns every subtask's result in one text. Use it for work that needs several distinct",
  "steps; for a question or a change you can finish in one or two tool calls, act directly instead.",
].join(" ");

/** The plan tool's `steps` argument, present when plans wait for the user. */
export const PLAN_TOOL_STEPS_NOTE = "Leave this out: the planner fills it in, and the user reviews it before anything runs.";

export function plannerSystemPrompt(maxSubtasks: number): string {
  return [
    "You plan; you do not carry out the task. Look around with the read-only tools you have if that helps",
    "you understand the task, but never try to create, change or delete anything.",
    `Then split the task into 1 to ${maxSubtasks} subtasks, in the order they must happen. Each subtask is one`,
    "short, concrete instruction that a helper can follow without seeing the others. When the task changes",
    "something, make the last subtask check that the change works (run the tests, re-read the result).",
    "",
    'Your final reply is only this JSON object, without Markdown fences or any other text: {"subtasks": ["…", "…"]}',
  ].join("\n");
}

export function planRetryNote(problem: string): string {
  return `That reply could not be used as a plan. ${problem}\nReply again with only {"subtasks": ["…"]}.`;
}

/** The planner's next input after the user rejected its subtasks. */
export function planRejectedNote(subtasks: readonly string[], feedback: string): string {
  return `${rejectedPlanFeedback(subtasks, feedback)}\nReply with only {"subtasks": ["…"]}.`;
}

/** The plan tool's result when the user rejected the plan twice: the calling agent must not work around the user. */
export function planRejectedResult(review: PlanReview): string {
  return `${planRejectedAnswer(review)} Do not carry out the task another way: tell the user, and ask how they want to proceed.`;
}

export const SUBTASK_SYSTEM_PROMPT = [
  "You are one helper in a team that carries out a plan. You are given the overall task, the whole plan,",
  "what earlier helpers reported, and the one subtask that is yours. Do your subtask completely with the",
  "tools you have, and nothing beyond it: later subtasks belong to other helpers. Do not make a new plan.",
  "Finish with a short report of what you did and found, including any value a later subtask will need.",
].join(" ");

/** `review` is what the user's review of the plan changed (see planReviewNote), if anything. */
export function subtaskInput(
  task: string,
  subtasks: readonly string[],
  index: number,
  results: readonly string[],
  review: string | null = null,
): string {
  const plan = subtasks.map((s, i) => `${i + 1}. ${s}${i === index ? "   <- yours" : ""}`).join("\n");
  const done = results.length === 0 ? "(none yet)" : results.map((r, i) => `Subtask ${i + 1}: ${r}`).join("\n");
  return [
    `Overall task: ${task}`,
    `Plan:\n${plan}`,
    ...(review ? [`The user's review of the plan:\n${review}`] : []),
    `Results so far:\n${done}`,
    `Your subtask (${index + 1} of ${subtasks.length}): ${subtasks[index] ?? ""}`,
  ].join("\n\n");
}

export function planResultsText(results: readonly string[], review: string | null = null): string {
  const reviewed = review ? [`[The user's review of the plan]\n${review}`] : [];
  return [...reviewed, "[Plan execution results]", ...results.map((r, i) => `Subtask ${i + 1}: ${r}`)].join("\n");
}
