// Everything the LLM compiler's models read. llm-compiler-prompts.test.ts checks what each must say.

export function compilerPlannerPrompt(catalog: string): string {
  return [
    "Plan the tool calls that answer the task as a graph of tasks. Tasks run in parallel, each one as soon",
    "as the results it uses are ready, and they start while you are still writing: put independent tasks",
    "first and make a task wait only for what it really needs.",
    "",
    `Tools:\n${catalog}`,
    "",
    "Write one task per line as a JSON object, with no other text and no Markdown fences:",
    '{"id": 1, "tool": "tool name", "args": {"argument": "value"}}',
    'Number tasks 1, 2, 3, … in the order you write them. To use the result of an earlier task, write "$n"',
    'inside a string argument (for example "compare $1 with $2"); a task can only use tasks above it.',
    '"$n" in running text refers to task n only when n is a task above; any other "$" is plain text, so',
    '"laptops under $500" stays as written. An argument that is just "$n", or "${n}" anywhere, always refers',
    'to task n. To keep a dollar sign as text before the number of a task above, double it: "$$2 off".',
    'End the plan with the line {"tool": "join"}.',
  ].join("\n");
}

export type FinishedTaskView = { id: number; call: string; result: string; isError: boolean };

export function compilerReplanInput(input: { done: readonly FinishedTaskView[]; reason: string; errors: readonly string[]; nextId: number }): string {
  return [
    "The tasks so far did not finish the job.",
    `Why: ${input.reason}`,
    input.errors.length > 0 ? `Parts of the last plan were refused:\n- ${input.errors.join("\n- ")}` : "",
    `Tasks already run (never run them again; use their results as $n):\n${renderTasks(input.done)}`,
    `Plan only the remaining work. Number new tasks from ${input.nextId}.`,
  ]
    .filter((part) => part.length > 0)
    .join("\n\n");
}

/** `review`: what the user's review of the plans changed (planReviewNote), so the answer keeps to the plan as they left it. */
export function joinerPrompt(input: {
  task: string;
  done: readonly FinishedTaskView[];
  errors: readonly string[];
  lastRound: boolean;
  review?: string | null;
}): string {
  return [
    "Decide whether the task results below answer the task. Failed tasks show their error.",
    '- If they do, reply {"action": "finish", "answer": "…"} with the complete answer for the user.',
    input.lastRound
      ? "- This was the last planning round: answer with what you have and say what is missing."
      : '- If something is missing or failed in a way that matters, reply {"action": "replan", "reason": "…"} saying what is still needed.',
    "Reply with only that JSON object.",
    "",
    `Task: ${input.task}`,
    ...(input.review ? [`\n${input.review}`] : []),
    input.errors.length > 0 ? `\nRefused parts of the plan:\n- ${input.errors.join("\n- ")}` : "",
    `\nTask results:\n${renderTasks(input.done)}`,
  ].join("\n");
}

function renderTasks(tasks: readonly FinishedTaskView[]): string {
  if (tasks.length === 0) return "(none)";
  return tasks.map((t) => `${t.id}. ${t.call} -> ${t.isError ? "ERROR: " : ""}${t.result}`).join("\n");
}
