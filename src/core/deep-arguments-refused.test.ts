import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../models/scripted.js";
import { Agent } from "./agent.js";
import { MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH } from "./argument-limits.js";
import { defineTool } from "./tool.js";

let ran = 0;
const readFile = defineTool({
  name: "read_file",
  description: "Reads a file.",
  parameters: z.object({ path: z.string(), options: z.object({ tags: z.array(z.unknown()) }).optional() }),
  readOnly: true,
  execute: () => {
    ran++;
    return "contents";
  },
});

const objects = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
const arrays = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

/** An object nested `levels` deep, built without recursion (as a library caller might). */
function deepObject(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe("deeply nested or huge arguments are refused, never thrown", () => {
  it("refuses nesting past the limit, as JSON text or as an object, naming the limit", async () => {
    for (const levels of [2_000, 100_000]) {
      for (const args of [
        `{"path":${objects(levels)}}`,
        `{"path":${arrays(levels)}}`,
        { path: deepObject(levels) },
      ]) {
        const result = await readFile.invoke(args);
        expect(result.isError).toBe(true);
        expect(result.text).toContain(`more than ${MAX_ARGUMENT_DEPTH} levels`);
        expect(result.text).toContain("Expected: { path: string");
      }
    }
    expect(ran).toBe(0);
  });

  it("refuses deep JSON text inside a string that repair would parse", async () => {
    const result = await readFile.invoke({ path: "a.txt", options: `{"tags":${arrays(5_000)}}` });
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toMatch(/^- options: .*more than \d+ levels/m);
    expect(ran).toBe(0);
  });

  it("accepts nesting up to the limit, counted over the whole call", async () => {
    // The root object and "options" take two levels; the rest go to the "tags" array.
    const inner = arrays(MAX_ARGUMENT_DEPTH - 2);
    expect((await readFile.invoke(`{"path":"a.txt","options":{"tags":${inner}}}`)).isError).toBe(false);
    expect((await readFile.invoke({ path: "a.txt", options: `{"tags":${inner}}` })).isError).toBe(false);
    const tooDeep = await readFile.invoke(`{"path":"a.txt","options":{"tags":[${inner}]}}`);
    expect(tooDeep.text).toContain(`more than ${MAX_ARGUMENT_DEPTH} levels`);
  });

  it("refuses arguments longer than the limit, saying how long they were", async () => {
    const text = `{"path":"${"x".repeat(MAX_ARGUMENT_CHARS)}"}`;
    const result = await readFile.invoke(text);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(`${text.length.toLocaleString("en-US")} characters`);
    expect(result.text).toContain(`at most ${MAX_ARGUMENT_CHARS.toLocaleString("en-US")}`);
    expect((await readFile.invoke({ path: "x".repeat(MAX_ARGUMENT_CHARS) })).text).toContain("more than");
    expect(readFile.check?.(text)?.text).toBe(result.text);
  });

  it("an agent run whose model sends a deep call finishes, and the model sees the error", async () => {
    const before = ran;
    const model = scriptedModel([
      { toolCalls: [{ name: "read_file", arguments: `{"path":${objects(100_000)}}` }] },
      { toolCalls: [{ name: "read_file", arguments: { path: "a.txt" } }] },
      "done",
    ]);
    const result = await new Agent({ model, tools: [readFile] }).run("read it");
    expect(result).toMatchObject({ text: "done", stopReason: "final" });
    const error = model.requests[1]?.messages.at(-1);
    expect(error).toMatchObject({ role: "tool", name: "read_file" });
    expect(error?.content).toContain(`more than ${MAX_ARGUMENT_DEPTH} levels`);
    expect(ran).toBe(before + 1);
  });
});
