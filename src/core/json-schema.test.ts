import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeJsonSchema, toJsonSchema } from "./json-schema.js";

describe("describeJsonSchema", () => {
  it("shows the value type of a map, so an error's expected shape says what its keys hold", () => {
    const schema = z.object({ updates: z.object({}).catchall(z.string()).optional(), metadata: z.record(z.string(), z.number()), empty: z.object({}) });
    expect(describeJsonSchema(toJsonSchema(schema))).toBe("{ updates?: { [key: string]: string }, metadata: { [key: string]: number }, empty: {} }");
  });
});

describe("toJsonSchema", () => {
  it("converts a schema once however many tools are made from it, and each schema to its own", () => {
    const schema = z.object({ path: z.string() });
    expect(toJsonSchema(schema)).toBe(toJsonSchema(schema));
    expect(toJsonSchema(z.object({ path: z.string() }))).not.toBe(toJsonSchema(schema));
    expect(toJsonSchema(z.object({ path: z.string() }))).toEqual(toJsonSchema(schema));
  });
});
