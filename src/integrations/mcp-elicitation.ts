import type { ApprovalDecision } from "../core/approval.js";
import { boundedQuote, boundedText } from "../core/bounded-quote.js";

/** A question the server asks the user in the middle of a call (MCP elicitation), with the form it wants filled. */
export type McpElicitation = { message: string; requestedSchema: Record<string, unknown> };
export type McpElicitationAnswer = { action: "accept"; content: Record<string, unknown> } | { action: "decline" | "cancel" };
/** The user's reply to a question: an answer, or a rejection (the user would not answer). */
export type McpReply = Extract<ApprovalDecision, { action: "answer" | "reject" }>;
/** A question the user replied to while its call waited, kept in the paused call's state to answer it when the call is made again. */
export type McpAnswered = { elicitation: McpElicitation; reply: McpReply };

/** One field of an elicitation form: MCP allows flat forms of strings, numbers, booleans and lists of choices. */
type FieldSchema = {
  type?: unknown;
  title?: unknown;
  description?: unknown;
  default?: unknown;
  enum?: unknown;
  oneOf?: unknown;
  items?: { enum?: unknown; anyOf?: unknown };
  minimum?: unknown;
  maximum?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
};

/** The most of a server's question (message and form, as JSON) that is put to the user and kept in a paused run. */
export const ELICITATION_LIMIT = 16_000;
const MESSAGE_LIMIT = 1_000;
const FIELDS_SHOWN = 20;

/** Whether a server's question is small enough to pause a run with: it is saved with the run and shown whole. */
export function fitsInPausedRun(elicitation: McpElicitation): boolean {
  return canonicalJson(elicitation).length <= ELICITATION_LIMIT;
}

/** Whether a saved question is the one the server asks now: the same message and form. */
export function isSameElicitation(saved: McpElicitation, elicitation: McpElicitation): boolean {
  return canonicalJson(saved) === canonicalJson(elicitation);
}

/** The question as the user sees it: the server's message, then the form's fields and how to answer. */
export function elicitationQuestion(elicitation: McpElicitation, server: string): string {
  const fields = fieldsOf(elicitation);
  const required = requiredOf(elicitation);
  const lines = [`${server} asks: ${boundedText(elicitation.message, MESSAGE_LIMIT)}`];
  if (fields.length === 0) {
    lines.push("Any answer accepts; reject the question to decline.");
    return lines.join("\n");
  }
  lines.push("Fields:");
  for (const [name, field] of fields.slice(0, FIELDS_SHOWN)) {
    const need = required.has(name) ? "required" : "optional";
    const fallback = field.default !== undefined ? `, default ${boundedText(JSON.stringify(field.default), 80)}` : "";
    const about = [field.title, field.description].filter((t): t is string => typeof t === "string" && t.length > 0).join(": ");
    lines.push(`- ${boundedText(name, 60)} (${kindOf(field)}, ${need}${fallback})${about ? ` ${boundedText(about, 200)}` : ""}`);
  }
  if (fields.length > FIELDS_SHOWN) lines.push(`- … and ${fields.length - FIELDS_SHOWN} more`);
  const [onlyName] = fields.length === 1 ? (fields[0] as [string, FieldSchema]) : [];
  lines.push(
    onlyName !== undefined
      ? `Answer with the ${boundedText(onlyName, 60)} (or a JSON object of the fields); reject the question to decline.`
      : `Answer with a JSON object of the fields, e.g. {${JSON.stringify(fields[0]?.[0])}: …}; reject the question to decline.`,
  );
  if (fields.some(([name, field]) => field.default !== undefined || !required.has(name))) {
    lines.push("Fields you leave out take their defaults; an empty answer accepts them all.");
  }
  return lines.join("\n");
}

/**
 * The answer the server gets for the user's reply: a rejection declines; an answer is read as a JSON
 * object of the form's fields, or, for a form of one field, as that field's value. A problem says
 * what was wrong and what the form accepts.
 */
export function elicitationAnswer(elicitation: McpElicitation, reply: McpReply): McpElicitationAnswer | { problem: string } {
  if (reply.action === "reject") return { action: "decline" };
  const fields = new Map(fieldsOf(elicitation));
  const text = reply.text.trim();
  let given: Record<string, unknown>;
  if (text === "" || fields.size === 0) given = {};
  else if (text.startsWith("{")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return { problem: `the answer is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { problem: "the answer must be one JSON object of the fields" };
    given = parsed as Record<string, unknown>;
  } else if (fields.size === 1) given = { [[...fields.keys()][0] as string]: text };
  else return { problem: `this form has ${fields.size} fields (${[...fields.keys()].join(", ")}): answer with a JSON object of them` };

  const content: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(given)) {
    const field = fields.get(name);
    if (!field) return { problem: `the form has no field ${boundedQuote(name, 60)}; its fields are: ${[...fields.keys()].join(", ")}` };
    const read = fieldValue(field, value);
    if ("problem" in read) return { problem: `${name}: ${read.problem}` };
    content[name] = read.value;
  }
  const missing = [...requiredOf(elicitation)].filter((name) => content[name] === undefined && fields.get(name)?.default === undefined);
  if (missing.length > 0) return { problem: `the form needs ${missing.join(", ")}` };
  return { action: "accept", content };
}

/** A field's value from what the user gave: typed JSON, or text (one-field answers are text) read as the field's type. */
function fieldValue(field: FieldSchema, value: unknown): { value: unknown } | { problem: string } {
  const shown = () => boundedQuote(typeof value === "string" ? value : JSON.stringify(value) ?? String(value), 60);
  switch (field.type) {
    case "number":
    case "integer": {
      const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isFinite(n)) return { problem: `expected a number, got ${shown()}` };
      if (field.type === "integer" && !Number.isInteger(n)) return { problem: `expected a whole number, got ${shown()}` };
      if (typeof field.minimum === "number" && n < field.minimum) return { problem: `must be at least ${field.minimum}` };
      if (typeof field.maximum === "number" && n > field.maximum) return { problem: `must be at most ${field.maximum}` };
      return { value: n };
    }
    case "boolean": {
      if (typeof value === "boolean") return { value };
      const word = typeof value === "string" ? value.trim().toLowerCase() : "";
      if (["yes", "y", "true"].includes(word)) return { value: true };
      if (["no", "n", "false"].includes(word)) return { value: false };
      return { problem: `expected yes or no, got ${shown()}` };
    }
    case "array": {
      const items = typeof value === "string" ? value.split(",").map((item) => item.trim()).filter((item) => item !== "") : value;
      if (!Array.isArray(items) || !items.every((item) => typeof item === "string")) return { problem: `expected a list of choices, got ${shown()}` };
      const choices = choicesOf(field.items?.enum, field.items?.anyOf);
      const wrong = choices ? items.find((item) => !choices.includes(item)) : undefined;
      if (wrong !== undefined) return { problem: `${boundedQuote(wrong, 60)} is not one of: ${choices?.join(", ")}` };
      return { value: items };
    }
    default: {
      if (typeof value !== "string") return { problem: `expected text, got ${shown()}` };
      const choices = choicesOf(field.enum, field.oneOf);
      if (choices && !choices.includes(value)) return { problem: `${shown()} is not one of: ${choices.join(", ")}` };
      if (typeof field.minLength === "number" && value.length < field.minLength) return { problem: `needs at least ${field.minLength} characters` };
      if (typeof field.maxLength === "number" && value.length > field.maxLength) return { problem: `takes at most ${field.maxLength} characters` };
      return { value };
    }
  }
}

function kindOf(field: FieldSchema): string {
  switch (field.type) {
    case "number":
      return "number";
    case "integer":
      return "whole number";
    case "boolean":
      return "yes/no";
    case "array": {
      const choices = choicesOf(field.items?.enum, field.items?.anyOf);
      return choices ? `some of: ${boundedText(choices.join(", "), 200)}` : "list";
    }
    default: {
      const choices = choicesOf(field.enum, field.oneOf);
      return choices ? `one of: ${boundedText(choices.join(", "), 200)}` : "text";
    }
  }
}

/** The values a field allows: `enum`, or the `const`s of titled choices (`oneOf`/`anyOf`). */
function choicesOf(values: unknown, titled: unknown): string[] | undefined {
  if (Array.isArray(values)) return values.map(String);
  if (Array.isArray(titled)) return titled.map((choice) => String((choice as { const?: unknown }).const));
  return undefined;
}

function fieldsOf(elicitation: McpElicitation): [string, FieldSchema][] {
  const properties = elicitation.requestedSchema["properties"];
  if (typeof properties !== "object" || properties === null) return [];
  return Object.entries(properties as Record<string, unknown>).map(([name, field]) => [name, (typeof field === "object" && field !== null ? field : {}) as FieldSchema]);
}

function requiredOf(elicitation: McpElicitation): Set<string> {
  const required = elicitation.requestedSchema["required"];
  return new Set(Array.isArray(required) ? required.filter((name): name is string => typeof name === "string") : []);
}

/** JSON with object keys sorted, so the same question compares equal however its keys were ordered. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "object" && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
