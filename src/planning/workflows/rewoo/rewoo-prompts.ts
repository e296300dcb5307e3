// Everything ReWOO's models read. rewoo-prompts.test.ts checks what each must say.
import { LLM_WORKER, type RewooStep } from "./rewoo-plan-parser.js";

export function rewooPlannerPrompt(catalog: string): string {
  return [
    "Plan how to answer the task below with the tools listed, writing the whole plan now: you will not",
    "see any tool result. Name each step's result with a variable #E1, #E2, … and use a variable in a",
    "later step's input wherever that step needs the earlier result. Use as few steps as the task needs.",
    "",
    `Tools:\n${catalog}\n- ${LLM_WORKER} { input: string }: a language model that reasons over the text you give it (include the #E variables it needs).`,
    "",
    'Reply with only this JSON object: {"steps": [{"plan": "why this step", "id": "#E1", "tool": "tool name", "input": {"argument": "value, may mention #E1"}}]}',
    `For ${LLM_WORKER}, "input" is a string.`,
  ].join("\n");
}

export function rewooRetryNote(problem: string): string {
  return `That plan could not be used. ${problem}\nWrite the whole plan again in the requested JSON form.`;
}

/** `review`: what the user's review of the plan changed (planReviewNote), so the answer keeps to the plan as they left it. */
export function rewooSolverPrompt(task: string, steps: readonly RewooStep[], evidence: ReadonlyMap<string, string>, review: string | null = null): string {
  const lines = steps.map((step) => {
    const input = typeof step.input === "string" ? step.input : JSON.stringify(step.input);
    return `Plan: ${step.description}\n${step.id} = ${step.tool}[${input}]\nEvidence: ${evidence.get(step.id) ?? "(not run)"}`;
  });
  return [
    "Answer the task using the plan and the evidence its steps gathered. Evidence can be long, partly",
    "irrelevant or an error; rely on what supports the answer and say so if the evidence is not enough.",
    'A step whose input needed evidence that failed was not run; its evidence says "Not run" and why.',
    "Reply with the answer only.",
    "",
    `Task: ${task}`,
    "",
    ...(review ? [review, ""] : []),
    lines.length > 0 ? lines.join("\n\n") : "(no plan could be made: answer from the task alone)",
  ].join("\n");
}
