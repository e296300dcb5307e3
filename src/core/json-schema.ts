import { z, type ZodType } from "zod";

// Converting is costly (a fraction of a millisecond for a small schema), and tools are made anew for
// every run a worker drives; zod schemas are immutable, so one conversion serves every tool made from it.
const converted = new WeakMap<ZodType, Record<string, unknown>>();

/** The JSON Schema a model receives for a zod schema (input side: defaults make fields optional). */
export function toJsonSchema(schema: ZodType): Record<string, unknown> {
  const known = converted.get(schema);
  if (known) return known;
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  converted.set(schema, rest);
  return rest;
}

const MAX_SHAPE_LENGTH = 600;

/** A compact, TypeScript-like rendering of a JSON Schema, used in error texts shown to the model. */
export function describeJsonSchema(schema: unknown): string {
  const text = describe(schema, 0);
  return text.length > MAX_SHAPE_LENGTH ? `${text.slice(0, MAX_SHAPE_LENGTH)}…` : text;
}

function describe(node: unknown, depth: number): string {
  if (typeof node !== "object" || node === null || depth > 6) return "any";
  const s = node as Record<string, unknown>;
  if (Array.isArray(s["enum"])) return s["enum"].map((v) => JSON.stringify(v)).join(" | ");
  if ("const" in s) return JSON.stringify(s["const"]);
  const variants = (s["anyOf"] ?? s["oneOf"]) as unknown[] | undefined;
  if (Array.isArray(variants)) return variants.map((v) => describe(v, depth + 1)).join(" | ");
  switch (s["type"]) {
    case "object": {
      const props = (s["properties"] ?? {}) as Record<string, unknown>;
      const required = new Set((s["required"] as string[] | undefined) ?? []);
      const fields = Object.entries(props).map(
        ([key, value]) => `${key}${required.has(key) ? "" : "?"}: ${describe(value, depth + 1)}`,
      );
      // A map (a record, or an object with extra keys of one type) shows its value type; an empty
      // schema ({}, any value) constrains nothing and would only add noise to the expected shape.
      const extra = s["additionalProperties"];
      if (typeof extra === "object" && extra !== null && Object.keys(extra).length > 0) fields.push(`[key: string]: ${describe(extra, depth + 1)}`);
      return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`;
    }
    case "array":
      return `${wrap(describe(s["items"], depth + 1))}[]`;
    case "string":
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return s["type"];
    default:
      return Array.isArray(s["type"]) ? (s["type"] as string[]).join(" | ") : "any";
  }
}

function wrap(text: string): string {
  return text.includes(" | ") ? `(${text})` : text;
}
