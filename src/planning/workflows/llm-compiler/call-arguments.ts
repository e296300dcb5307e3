// Reads the argument list of a task line in the reference's text form: `search(query="x", limit=3)`,
// `math("2 * $1")`, `lookup(ids=[$1, ${2}], exact=True)`. Values are JSON or Python-like literals.
import { parseJsonWithinLimits } from "../../../core/argument-limits.js";

/** The arguments as an object: keyword arguments by name, positional ones by the tool's parameter order. */
export function parseCallArguments(text: string, parameterNames: readonly string[]): { args: Record<string, unknown> } | { error: string } {
  const args: Record<string, unknown> = {};
  const parts = splitTopLevel(text);
  for (const [index, part] of parts.entries()) {
    const keyword = /^([A-Za-z_]\w*)\s*=(?!=)\s*([\s\S]+)$/.exec(part);
    const name = keyword ? (keyword[1] as string) : parameterNames[index];
    if (name === undefined) return { error: `argument ${index + 1} (${part}) has no name, and the tool takes only ${parameterNames.length}.` };
    const value = parseLiteral(keyword ? (keyword[2] as string) : part);
    if (value === undefined) return { error: `argument "${name}" is not a literal value: ${part}` };
    args[name] = value;
  }
  return { args };
}

function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quote) {
      if (char === "\\") i++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if ("([{".includes(char)) depth++;
    else if (")]}".includes(char)) depth--;
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

const PYTHON_WORDS: Record<string, string> = { True: "true", False: "false", None: "null" };

function parseLiteral(text: string): unknown {
  const trimmed = text.trim();
  if (/^\$\{?\d+\}?$/.test(trimmed)) return trimmed;
  const jsonText = trimmed
    .replace(/"(?:[^"\\]|\\.)*"|'((?:[^'\\]|\\.)*)'|(\$\{?\d+\}?)|\b(True|False|None)\b/g, (whole, single?: string, ref?: string, word?: string) => {
      if (single !== undefined) return JSON.stringify(single.replace(/\\'/g, "'"));
      if (ref !== undefined) return JSON.stringify(ref);
      if (word !== undefined) return PYTHON_WORDS[word] as string;
      return whole;
    });
  const parsed = parseJsonWithinLimits(jsonText);
  return "value" in parsed ? parsed.value : undefined;
}
