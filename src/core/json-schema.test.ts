import { describe, expect, it } from "vitest";
import { z } from "zod";
import { describeJsonSchema, toJsonSchema } from "./json-schema.js";

describe("describeJsonSchema", () => {
  it("shows the value type of a map, so an error's expected shape says what its keys hold", () => {
    const schema = z.object({ updates: z.object({}).catchall(z.string()).optional(), metadata: z.record(z.string(), z.number()), empty: z.object({}) });
    expect(describeJsonSchema(toJsonSchema(schema))).toBe("{ updates?: { [key: string]: string }, metadata: { [key: string]: number }, empty: {} }");
  });
});
