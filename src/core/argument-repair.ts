import type { z, ZodType } from "zod";
import { jsonTextDepth, MAX_ARGUMENT_DEPTH } from "./argument-limits.js";

type RepairOutcome = { success: true; data: unknown } | { success: false; issues: readonly z.core.$ZodIssue[] };

/** How many passes may each repair one layer of stringly-typed nesting before we give up. */
const MAX_REPAIR_PASSES = 6;

/**
 * Validates `value` against `schema`, forgiving what models commonly get wrong while meaning the
 * right thing: a nested object or array sent as a JSON string, a number sent as "3", a boolean as
 * "true". Anything else is left to fail with zod's issues, which name the offending argument.
 */
export function repairArguments(schema: ZodType, value: unknown): RepairOutcome {
  let candidate = value;
  let cloned = false;
  for (let pass = 0; ; pass++) {
    const result = schema.safeParse(candidate);
    if (result.success) return { success: true, data: result.data };
    if (pass === MAX_REPAIR_PASSES) return { success: false, issues: result.error.issues };
    if (!cloned) {
      candidate = structuredClone(candidate);
      cloned = true;
    }
    let repaired = false;
    const refused: z.core.$ZodIssue[] = [];
    for (const issue of result.error.issues) {
      if (issue.code !== "invalid_type") continue;
      const outcome = repairAt(candidate, issue.path, issue.expected);
      if (typeof outcome === "string") refused.push({ code: "custom", path: issue.path, message: outcome, input: undefined });
      else repaired = outcome || repaired;
    }
    // A string too deep to parse is reported as such, not as the type mismatch it caused.
    if (refused.length > 0) return { success: false, issues: refused };
    if (!repaired) return { success: false, issues: result.error.issues };
  }
}

/** Repairs the value at `path` in place: true if it did, false if it could not, or why it refused. */
function repairAt(root: unknown, path: readonly PropertyKey[], expected: string): boolean | string {
  if (path.length === 0) return false;
  let parent: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (typeof parent !== "object" || parent === null) return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  if (typeof parent !== "object" || parent === null) return false;
  const container = parent as Record<PropertyKey, unknown>;
  const key = path[path.length - 1] as PropertyKey;
  const current = container[key];
  if (typeof current !== "string") return false;
  if (expected === "object" || expected === "array") {
    // The parsed text sits `path.length` levels down: the whole call stays within the limit.
    const room = MAX_ARGUMENT_DEPTH - path.length;
    if (jsonTextDepth(current, room) > room) {
      return `this JSON text nests more than ${room} levels deep here; the arguments may nest at most ${MAX_ARGUMENT_DEPTH} levels in all.`;
    }
  }
  const fixed = coerce(current, expected);
  if (fixed === undefined) return false;
  container[key] = fixed;
  return true;
}

function coerce(text: string, expected: string): unknown {
  const trimmed = text.trim();
  switch (expected) {
    case "object":
    case "array": {
      try {
        const parsed: unknown = JSON.parse(trimmed);
        const isArray = Array.isArray(parsed);
        if (expected === "array" ? isArray : typeof parsed === "object" && parsed !== null && !isArray) return parsed;
      } catch {
        // not JSON: leave the original issue standing
      }
      return undefined;
    }
    case "number":
    case "int":
      return trimmed !== "" && Number.isFinite(Number(trimmed)) ? Number(trimmed) : undefined;
    case "boolean":
      return trimmed === "true" ? true : trimmed === "false" ? false : undefined;
    default:
      return undefined;
  }
}
