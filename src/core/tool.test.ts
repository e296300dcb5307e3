import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, ToolError } from "./tool.js";

const addTool = defineTool({
  name: "add_subtask",
  description: "Adds a subtask.",
  parameters: z.object({
    index: z.number().int().min(0),
    subtask: z.object({ name: z.string(), tags: z.array(z.string()).optional() }),
    dry_run: z.boolean().optional(),
  }),
  execute: ({ index, subtask, dry_run }) => ({ index, name: subtask.name, tags: subtask.tags ?? [], dry_run }),
});

describe("defineTool", () => {
  it("publishes a JSON Schema without the $schema key", () => {
    expect(addTool.parameters).toMatchObject({ type: "object", required: ["index", "subtask"] });
    expect(addTool.parameters).not.toHaveProperty("$schema");
    expect(addTool.readOnly).toBe(false);
  });

  it("accepts an object or the JSON text of one", async () => {
    const fromObject = await addTool.invoke({ index: 1, subtask: { name: "a" } });
    const fromText = await addTool.invoke('{"index":1,"subtask":{"name":"a"}}');
    expect(fromObject).toEqual(fromText);
    expect(fromObject.isError).toBe(false);
    expect(JSON.parse(fromObject.text)).toMatchObject({ index: 1, name: "a" });
  });

  it("accepts nested objects and arrays sent as JSON strings, at any depth", async () => {
    const result = await addTool.invoke({ index: "2", subtask: JSON.stringify({ name: "b", tags: '["x","y"]' }), dry_run: "true" });
    expect(result.isError).toBe(false);
    expect(JSON.parse(result.text)).toEqual({ index: 2, name: "b", tags: ["x", "y"], dry_run: true });
  });

  it("names the wrong argument and the expected shape", async () => {
    const result = await addTool.invoke({ index: -1, subtask: { name: 3 } });
    expect(result.isError).toBe(true);
    expect(result.text).toContain('Invalid arguments for tool "add_subtask"');
    expect(result.text).toMatch(/- index: .*>=0/);
    expect(result.text).toMatch(/- subtask\.name: .*string/);
    expect(result.text).toContain("Expected: { index: integer, subtask: { name: string, tags?: string[] }, dry_run?: boolean }");
  });

  it("reports a missing argument", async () => {
    const result = await addTool.invoke({ index: 0 });
    expect(result).toMatchObject({ isError: true });
    expect(result.text).toContain("- subtask:");
  });

  it("answers malformed JSON and non-objects with an error, never a throw", async () => {
    const bad = await addTool.invoke('{"index": 1, "subtask": ');
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/not valid JSON/);
    const array = await addTool.invoke("[1,2]");
    expect(array.text).toMatch(/must be a JSON object, got an array/);
    const number = await addTool.invoke(42);
    expect(number.text).toMatch(/got a number/);
  });

  it("treats empty arguments as an empty object", async () => {
    const noArgs = defineTool({ name: "ping", description: "", parameters: z.object({}), execute: () => "pong" });
    expect(await noArgs.invoke("")).toEqual({ text: "pong", isError: false });
    expect(await noArgs.invoke(undefined)).toEqual({ text: "pong", isError: false });
  });

  it("turns a thrown error into an error result naming the tool, and a ToolError into its own text", async () => {
    const throwing = defineTool({
      name: "explode",
      description: "",
      parameters: z.object({ rule: z.boolean() }),
      execute: ({ rule }) => {
        if (rule) throw new ToolError("Subtask 2 is already done; call view_subtasks to see states.");
        throw new Error("disk full");
      },
    });
    expect(await throwing.invoke({ rule: false })).toEqual({ text: 'Tool "explode" failed: disk full', isError: true });
    expect(await throwing.invoke({ rule: true })).toEqual({
      text: "Subtask 2 is already done; call view_subtasks to see states.",
      isError: true,
    });
  });

  it("passes a ToolResult through and renders other values", async () => {
    const shapes = defineTool({
      name: "shapes",
      description: "",
      parameters: z.object({ kind: z.enum(["result", "valued", "other", "none", "number"]) }),
      execute: ({ kind }) => {
        if (kind === "result") return { text: "custom", isError: true };
        if (kind === "valued") return { text: "1\tline", isError: false, value: "line" };
        if (kind === "other") return { text: "t", isError: false, score: 1 };
        return kind === "none" ? undefined : 7;
      },
    });
    expect(await shapes.invoke({ kind: "result" })).toEqual({ text: "custom", isError: true });
    expect(await shapes.invoke({ kind: "valued" })).toEqual({ text: "1\tline", isError: false, value: "line" });
    expect(await shapes.invoke({ kind: "other" })).toEqual({ text: JSON.stringify({ text: "t", isError: false, score: 1 }, null, 2), isError: false });
    expect(await shapes.invoke({ kind: "none" })).toEqual({ text: "Done.", isError: false });
    expect(await shapes.invoke({ kind: "number" })).toEqual({ text: "7", isError: false });
  });

  it("refuses a tool name providers would reject", () => {
    expect(() => defineTool({ name: "has space", description: "", parameters: z.object({}), execute: () => "" })).toThrow(
      /Tool name "has space" is not accepted/,
    );
  });
});
