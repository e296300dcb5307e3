// Everything plan-and-execute's models read. plan-and-execute-prompts.test.ts checks what each must say.
import { rejectedPlanFeedback } from "../plan-approval-prompts.js";

export function stepPlannerPrompt(maxSteps: number): string {
  return [
    "Write a plan for the task below: the fewest simple steps, in order, that lead to its answer.",
    `Use 1 to ${maxSteps} steps. Each step is one instruction whose result the next steps can build on;`,
    "the last step should produce the final answer.",
    'Reply with only this JSON object, no Markdown fences or other text: {"steps": ["…", "…"]}',
  ].join("\n");
}

export function stepPlannerRetryNote(problem: string): string {
  return `That reply could not be used as a plan. ${problem}\nReply again with only {"steps": ["…"]}.`;
}

/** The planner's next input after the user rejected its steps. */
export function stepPlannerRejectedNote(steps: readonly string[], feedback: string): string {
  return `${rejectedPlanFeedback(steps, feedback)}\nReply with only {"steps": ["…"]}.`;
}

export const STEP_EXECUTOR_PROMPT = [
  "You carry out exactly one step of a plan, using your tools when they help, and answer with that",
  "step's result only. Keep the original question in mind, take earlier results as given instead of",
  "guessing them again, and leave later steps alone: they will be done next.",
].join(" ");

// The executor gets four things; each one prevents a known failure. Without the question it treats the
// step as an isolated chore; without the plan it strays into the next step; without the history it
// guesses values earlier steps already found; without the current step it tries to solve everything.
export function stepExecutorInput(input: {
  question: string;
  plan: readonly string[];
  doneCount: number;
  history: string;
  current: string;
  /** What the user's review of the plan changed (see planReviewNote), if anything. */
  review?: string | null;
}): string {
  const plan = input.plan
    .map((step, i) => `${i + 1}. ${i < input.doneCount ? "[done] " : ""}${step}${i === input.doneCount ? "   <- current" : ""}`)
    .join("\n");
  return [
    `Original question: ${input.question}`,
    `Whole plan:\n${plan}`,
    ...(input.review ? [`The user's review of the plan:\n${input.review}`] : []),
    `Steps done and their results:\n${input.history}`,
    `Current step: ${input.current}`,
  ].join("\n\n");
}

export function replannerPrompt(input: {
  question: string;
  plan: readonly string[];
  doneCount: number;
  history: string;
  /** What the user's review of the plan changed: the replanner must not undo it. */
  review?: string | null;
}): string {
  const remaining = input.plan.slice(input.doneCount);
  const reviewed = input.review
    ? ["", `The user reviewed the plan before it ran. Keep to their changes unless the results make a step impossible:\n${input.review}`]
    : [];
  return [
    "You review a plan while it runs. Given the question, the steps done with their results and the",
    "steps still planned, decide:",
    '- if the results already answer the question, reply {"answer": "…"} with the full final answer;',
    '- otherwise reply {"steps": ["…"]} with only the steps still to do (never the ones already done),',
    "  keeping the planned ones that still make sense and changing those the results proved wrong.",
    "Reply with only that JSON object.",
    ...reviewed,
    "",
    `Question: ${input.question}`,
    `Steps done and their results:\n${input.history}`,
    `Steps still planned:\n${remaining.length > 0 ? remaining.map((s, i) => `${i + 1}. ${s}`).join("\n") : "(none)"}`,
  ].join("\n");
}

export function historySummaryPrompt(maxWords: number): string {
  return [
    "Condense the earlier summary and the completed steps below into one summary for the agent that runs",
    "the next steps. Keep every fact, number, name and file it may still need; drop the narration.",
    `Stay under ${maxWords} words and reply with the summary only.`,
  ].join(" ");
}
