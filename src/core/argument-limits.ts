/**
 * Bounds on one tool call's arguments, checked before anything parses, clones or validates them:
 * what the model sends is hostile input, and recursive code (structuredClone, JSON.stringify, schema
 * walks) runs out of stack on deep nesting long before memory runs out.
 */

/** Most levels of objects and arrays inside each other, counting the arguments object itself. */
export const MAX_ARGUMENT_DEPTH = 64;
/** Most characters of JSON text in one call's arguments. */
export const MAX_ARGUMENT_CHARS = 4_000_000;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting of objects and arrays in JSON text, found in one pass without parsing; it
 * stops counting at `limit + 1`. Brackets inside strings do not count. Text that is not JSON gets
 * a number too, which is fine: it is refused either way.
 */
export function jsonTextDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

export type ValueExtent = { depth: number; size: number };

/**
 * How deep and how large an already-parsed value is, walked without recursion. `size` approximates
 * its JSON length (string and key lengths, one per value). The walk stops as soon as either limit
 * is passed, so a cyclic or widely shared object costs no more than a value at the limits.
 */
export function valueExtent(value: unknown, limits: ValueExtent): ValueExtent {
  const extent = { depth: 0, size: 0 };
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, level] = next;
    extent.size += typeof item === "string" ? item.length + 2 : 1;
    if (extent.size > limits.size) return extent;
    if (typeof item !== "object" || item === null) continue;
    extent.depth = Math.max(extent.depth, level);
    if (extent.depth > limits.depth) return extent;
    for (const [key, inner] of Object.entries(item)) {
      extent.size += Array.isArray(item) ? 1 : key.length + 3;
      if (extent.size > limits.size) return extent;
      pending.push([inner, level + 1]);
    }
  }
  return extent;
}

/**
 * Why arguments (JSON text, or a value a caller built) are past the limits, as a sentence that says
 * what is accepted; null when they are within them.
 */
export function argumentLimitProblem(args: unknown): string | null {
  const count = (n: number) => n.toLocaleString("en-US");
  const tooLong = (length: string) => `The JSON is ${length} characters long; at most ${count(MAX_ARGUMENT_CHARS)} characters are accepted.`;
  const tooDeep = `The JSON nests objects and arrays more than ${MAX_ARGUMENT_DEPTH} levels deep; at most ${MAX_ARGUMENT_DEPTH} levels are accepted.`;
  if (typeof args === "string") {
    if (args.length > MAX_ARGUMENT_CHARS) return tooLong(count(args.length));
    return jsonTextDepth(args, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH ? tooDeep : null;
  }
  const extent = valueExtent(args, { depth: MAX_ARGUMENT_DEPTH, size: MAX_ARGUMENT_CHARS });
  if (extent.size > MAX_ARGUMENT_CHARS) return tooLong(`more than ${count(MAX_ARGUMENT_CHARS)}`);
  return extent.depth > MAX_ARGUMENT_DEPTH ? tooDeep : null;
}

/** True when JSON text is short and shallow enough to parse and hand to recursive code safely. */
export function withinArgumentLimits(text: string): boolean {
  return argumentLimitProblem(text) === null;
}

/** Parses JSON text a model wrote, refusing text past the limits before parsing it. */
export function parseJsonWithinLimits(text: string): { value: unknown } | { error: string } {
  const problem = argumentLimitProblem(text);
  if (problem) return { error: problem };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
