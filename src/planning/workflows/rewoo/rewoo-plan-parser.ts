import { z } from "zod";
import { boundedQuote } from "../../../core/bounded-quote.js";
import type { AssistantMessage } from "../../../core/messages.js";
import { referencedVariables } from "./evidence-variables.js";
import { parseJsonReply } from "../json-reply.js";

/** One ReWOO step: `#E{n} = tool[input]`, where input may mention earlier variables. */
export type RewooStep = { id: string; description: string; tool: string; input: string | Record<string, unknown> };

/** The worker that answers a step with one plain model call instead of a tool. */
export const LLM_WORKER = "LLM";

const jsonPlan = z.object({
  steps: z
    .array(
      z.object({
        plan: z.string().default(""),
        id: z.string().regex(/^#E\d+$/, 'an id looks like "#E3"').optional(),
        tool: z.string().min(1),
        input: z.union([z.string(), z.record(z.string(), z.unknown())]),
      }),
    )
    .min(1),
});

// The reference's text form: "Plan: <why> #E1 = Tool[input]", the variable line possibly on its own line.
const TEXT_STEP = /Plan:\s*([\s\S]*?)\s*(#E\d+)\s*=\s*([A-Za-z0-9_-]+)\s*\[([\s\S]*?)\]\s*(?=Plan:|$)/g;

/**
 * Reads a ReWOO plan in any of three forms: tool calls (one per step, numbered in order), JSON
 * `{"steps": [{plan, tool, input}]}`, or the reference's text. Refuses unknown tools, repeated
 * variables and any use of a variable no earlier step defines, naming each problem.
 */
export function parseRewooPlan(message: AssistantMessage, toolNames: readonly string[]): { steps: RewooStep[] } | { error: string } {
  const steps = readSteps(message);
  if ("error" in steps) return steps;
  const problems: string[] = [];
  const known = new Set([...toolNames, LLM_WORKER]);
  const defined = new Set<string>();
  for (const step of steps.steps) {
    if (!known.has(step.tool)) problems.push(`${step.id} uses the unknown tool "${step.tool}"; use one of: ${[...known].join(", ")}.`);
    for (const variable of referencedVariables(step.input)) {
      if (!defined.has(variable)) problems.push(`${step.id} uses ${variable}, which no earlier step defines.`);
    }
    if (defined.has(step.id)) problems.push(`${step.id} is defined twice; give each step its own variable.`);
    defined.add(step.id);
  }
  return problems.length > 0 ? { error: `The plan was refused:\n- ${problems.join("\n- ")}` } : steps;
}

function readSteps(message: AssistantMessage): { steps: RewooStep[] } | { error: string } {
  const calls = message.toolCalls ?? [];
  if (calls.length > 0) {
    const steps: RewooStep[] = [];
    for (const [index, call] of calls.entries()) {
      const args = parseJsonReply(call.arguments);
      if ("error" in args || typeof args.value !== "object" || args.value === null || Array.isArray(args.value)) {
        return { error: `The arguments of tool call ${index + 1} (${call.name}) are not a JSON object.` };
      }
      steps.push({ id: `#E${index + 1}`, description: call.name, tool: call.name, input: args.value as Record<string, unknown> });
    }
    return { steps };
  }
  const text = message.content;
  const textSteps = [...text.matchAll(TEXT_STEP)].map(
    ([, description, id, tool, input]): RewooStep => ({
      id: id as string,
      description: (description ?? "").trim(),
      tool: tool as string,
      input: (input ?? "").trim(),
    }),
  );
  if (textSteps.length > 0 && !text.trimStart().startsWith("{")) return { steps: textSteps };
  const json = parseJsonReply(text);
  if ("error" in json) return { error: `${json.error} No "Plan: … #E1 = tool[input]" lines were found either.` };
  const checked = jsonPlan.safeParse(json.value);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { error: `The JSON plan does not have the expected shape: ${issue?.path.join(".") || "(the object)"}: ${issue?.message}` };
  }
  return {
    steps: checked.data.steps.map((step, index) => ({
      id: step.id ?? `#E${index + 1}`,
      description: step.plan,
      tool: step.tool,
      input: step.input,
    })),
  };
}

/** A step as one line of the text form, which `parseRewooPlan` reads back: how a plan is shown to the user for review. */
export function rewooStepLine(step: RewooStep): string {
  const input = typeof step.input === "string" ? step.input : JSON.stringify(step.input);
  return `Plan: ${step.description} ${step.id} = ${step.tool}[${input}]`;
}

/**
 * Reads the plan lines a user edited (the form `rewooStepLine` writes); refuses what the planner's
 * plan would be refused for, saying what is accepted.
 */
export function readEditedRewooPlan(lines: readonly string[], toolNames: readonly string[]): { steps: RewooStep[] } | { error: string } {
  const form = 'Write each step as one line, "Plan: <why> #E1 = tool[input]".';
  // Line by line: a line that is not one step would otherwise be dropped without a word.
  const unread = lines.flatMap((line, i) =>
    line.trimStart().startsWith("Plan:") && [...line.matchAll(TEXT_STEP)].length === 1 ? [] : [`line ${i + 1}, ${boundedQuote(line, 80)}`],
  );
  if (unread.length > 0) return { error: `Not a step: ${unread.slice(0, 5).join("; ")}${unread.length > 5 ? ` and ${unread.length - 5} more` : ""}. ${form}` };
  const read = parseRewooPlan({ role: "assistant", content: lines.join("\n") }, toolNames);
  return "error" in read ? { error: `${read.error} ${form}` } : read;
}
