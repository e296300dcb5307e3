import type { ZodType } from "zod";
import { parseJsonWithinLimits } from "../../core/argument-limits.js";

/**
 * Reads the JSON a model was asked for out of its reply. Models often wrap it in a Markdown fence or
 * a sentence of prose, so the fence is unwrapped and, failing that, the outermost braces are tried.
 */
export function parseJsonReply(text: string): { value: unknown } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { error: "The reply was empty; a JSON object was expected." };
  const fenced = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(trimmed)?.[1];
  const candidates = [trimmed, fenced, outermostObject(trimmed)].filter((c): c is string => typeof c === "string");
  let firstError = "";
  for (const candidate of candidates) {
    const parsed = parseJsonWithinLimits(candidate);
    if ("value" in parsed) return parsed;
    firstError ||= parsed.error;
  }
  return { error: `The reply is not valid JSON (${firstError}). Reply with one JSON object and nothing else.` };
}

function outermostObject(text: string): string | undefined {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

/** Parses a JSON reply and checks it against a zod schema; the error names what to fix. */
export function readJsonReply<T>(text: string, schema: ZodType<T>): { data: T } | { error: string } {
  const parsed = parseJsonReply(text);
  if ("error" in parsed) return parsed;
  const checked = schema.safeParse(parsed.value);
  if (checked.success) return { data: checked.data };
  const problems = checked.error.issues.slice(0, 6).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(the object)";
    return `- ${where}: ${issue.message}`;
  });
  return { error: ["The JSON does not have the expected shape:", ...problems].join("\n") };
}
