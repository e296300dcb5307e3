import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseJsonReply, readJsonReply } from "./json-reply.js";

describe("JSON replies", () => {
  it("reads bare JSON, fenced JSON and JSON inside a sentence", () => {
    expect(parseJsonReply('{"a": 1}')).toEqual({ value: { a: 1 } });
    expect(parseJsonReply('Sure:\n```json\n{"a": 2}\n```')).toEqual({ value: { a: 2 } });
    expect(parseJsonReply('The plan is {"a": 3}. Good luck.')).toEqual({ value: { a: 3 } });
  });

  it("names what is wrong: not JSON, empty, or the wrong shape", () => {
    expect(parseJsonReply("no json here")).toMatchObject({ error: expect.stringMatching(/not valid JSON/) });
    expect(parseJsonReply("  ")).toEqual({ error: "The reply was empty; a JSON object was expected." });
    const read = readJsonReply('{"subtasks": [1]}', z.object({ subtasks: z.array(z.string()) }));
    expect("error" in read && read.error).toMatch(/subtasks\.0: .*string/);
  });
});
