import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../models/scripted.js";
import { Agent } from "./agent.js";
import { askUserTool } from "./ask-user.js";
import type { Plugin } from "./plugin.js";
import type { AgentState } from "./state.js";
import { defineTool } from "./tool.js";

function workspace() {
  const files = new Map<string, string>();
  const writes: string[] = [];
  const read = defineTool({
    name: "read_note",
    description: "",
    parameters: z.object({ path: z.string() }),
    readOnly: true,
    execute: ({ path }) => files.get(path) ?? "(missing)",
  });
  const write = defineTool({
    name: "write_note",
    description: "",
    parameters: z.object({ path: z.string(), text: z.string() }),
    execute: ({ path, text }) => {
      writes.push(`${path}=${text}`);
      files.set(path, text);
      return `wrote ${path}`;
    },
  });
  return { files, writes, tools: [read, write] };
}

const writeTurn = {
  toolCalls: [
    { name: "read_note", arguments: { path: "a" }, id: "r1" },
    { name: "write_note", arguments: { path: "a", text: "hello" }, id: "w1" },
  ],
};

describe("permissions", () => {
  it("without a policy every call runs", async () => {
    const ws = workspace();
    const agent = new Agent({ model: scriptedModel([writeTurn, "ok"]), tools: ws.tools });
    expect((await agent.run("go")).stopReason).toBe("final");
    expect(ws.writes).toEqual(["a=hello"]);
  });

  it("denies a call with an error result that says so", async () => {
    const ws = workspace();
    const agent = new Agent({ model: scriptedModel([writeTurn, "ok"]), tools: ws.tools, permissions: { write: "deny" } });
    await agent.run("go");
    expect(ws.writes).toEqual([]);
    const denied = agent.memory.find((m) => m.role === "tool" && m.toolCallId === "w1");
    expect(denied?.content).toMatch(/^Denied: the permission policy does not allow "write_note"/);
  });

  it("decides by tool name, by a function of the arguments, and by the read-only flag", async () => {
    const ws = workspace();
    const turn = {
      toolCalls: [
        { name: "write_note", arguments: { path: "tmp/x", text: "1" }, id: "a" },
        { name: "write_note", arguments: { path: "etc/passwd", text: "2" }, id: "b" },
      ],
    };
    const agent = new Agent({
      model: scriptedModel([turn, "ok"]),
      tools: ws.tools,
      permissions: {
        tools: { write_note: (args) => ((args as { path: string }).path.startsWith("tmp/") ? "allow" : "deny") },
      },
    });
    await agent.run("go");
    expect(ws.writes).toEqual(["tmp/x=1"]);
  });

  it("hands a permission rule the raw text of arguments nested too deep to parse safely", async () => {
    const ws = workspace();
    const seen: unknown[] = [];
    const deep = '{"path":' + "[".repeat(100_000) + "]".repeat(100_000) + "}";
    const agent = new Agent({
      model: scriptedModel([{ toolCalls: [{ name: "write_note", arguments: deep }] }, "ok"]),
      tools: ws.tools,
      permissions: { tools: { write_note: (args) => (seen.push(args), "allow") } },
    });
    expect(await agent.run("go")).toMatchObject({ text: "ok", stopReason: "final" });
    expect(seen).toEqual([deep]);
    expect(ws.writes).toEqual([]);
  });

  it("lets plugin (planning) tools and read-only tools run while write tools ask", async () => {
    const ws = workspace();
    const planning: Plugin = {
      name: "planning",
      tools: () => [defineTool({ name: "note_plan", description: "", parameters: z.object({}), execute: () => "planned" })],
    };
    const turn = { toolCalls: [{ name: "note_plan", arguments: {} }, ...writeTurn.toolCalls] };
    const agent = new Agent({ model: scriptedModel([turn, "ok"]), tools: ws.tools, plugins: [planning], permissions: {} });
    const result = await agent.run("go");
    expect(result.stopReason).toBe("awaiting-user");
    expect(result.pending?.map((c) => c.name)).toEqual(["write_note"]);
  });
});

describe("pause and resume", () => {
  async function pausedAgent() {
    const ws = workspace();
    const model = scriptedModel([writeTurn, (req) => `last result: ${req.messages.at(-1)?.content}`]);
    const agent = new Agent({ name: "writer", model, tools: ws.tools, permissions: {} });
    const result = await agent.run("write hello to a");
    return { ws, model, agent, result };
  }

  it("stops on an ask call with the pending call, having run the allowed ones once", async () => {
    const { ws, result, agent } = await pausedAgent();
    expect(result.stopReason).toBe("awaiting-user");
    expect(result.pending).toEqual([
      { id: "w1", name: "write_note", arguments: '{"path":"a","text":"hello"}', kind: "approval" },
    ]);
    expect(ws.writes).toEqual([]);
    // Results wait with the pending turn, so memory never holds half a turn's answers.
    expect(agent.memory.at(-1)?.role).toBe("assistant");
    await expect(agent.run("something else")).rejects.toThrow(/waiting for the user's decision on w1/);
  });

  it("resumes from saved JSON in a new agent with an approval: the call runs exactly once", async () => {
    const { ws, agent } = await pausedAgent();
    const saved = JSON.parse(JSON.stringify(agent.saveState())) as AgentState;
    expect(saved.pending?.awaiting.map((c) => c.id)).toEqual(["w1"]);

    const model = scriptedModel([(req) => `done after ${req.messages.filter((m) => m.role === "tool").length} results`]);
    const fresh = new Agent({ name: "writer", model, tools: ws.tools, permissions: {} });
    const result = await fresh.resume(saved, { w1: { action: "approve" } });
    expect(result).toMatchObject({ stopReason: "final", text: "done after 2 results" });
    expect(ws.writes).toEqual(["a=hello"]);
    const toolResults = fresh.memory.filter((m) => m.role === "tool").map((m) => m.content);
    expect(toolResults).toEqual(["(missing)", "wrote a"]);
    await expect(fresh.resume(null, { w1: { action: "approve" } })).rejects.toThrow(/nothing to resume/);
  });

  it("answers a rejection with the user's reason and never runs the call", async () => {
    const { ws, agent } = await pausedAgent();
    const result = await agent.resume(undefined, { w1: { action: "reject", reason: "not that file" } });
    expect(ws.writes).toEqual([]);
    expect(result.text).toBe("last result: The user rejected this call: not that file. Do not repeat it unchanged.");
  });

  it("runs an edited call as edited and tells the model", async () => {
    const { ws, agent } = await pausedAgent();
    const result = await agent.resume(undefined, { w1: { action: "edit", arguments: { path: "b", text: "edited" } } });
    expect(ws.writes).toEqual(["b=edited"]);
    expect(result.text).toMatch(/wrote b\nThe user edited this call before approving it/);
    const assistant = agent.memory.find((m) => m.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.toolCalls?.[1]?.arguments).toBe('{"path":"b","text":"edited"}');
  });

  it("gives an edited call the model's proposal in ctx.editedFrom, and lets a tool that explains edits replace the generic note", async () => {
    const seen: (string | undefined)[] = [];
    const rename = defineTool({
      name: "rename",
      description: "",
      parameters: z.object({ to: z.string().min(1) }),
      requiresApproval: true,
      explainsEdits: true,
      execute: ({ to }, ctx) => {
        seen.push(ctx.editedFrom);
        return ctx.editedFrom === undefined ? `renamed to ${to}` : `renamed to ${to}, not ${ctx.editedFrom} as you asked`;
      },
    });
    const turn = { toolCalls: [{ name: "rename", arguments: { to: "a" }, id: "n1" }] };
    const echo = (req: { messages: { content: string }[] }) => `saw: ${req.messages.at(-1)?.content}`;

    const edited = new Agent({ model: scriptedModel([turn, echo]), tools: [rename] });
    await edited.run("go");
    const result = await edited.resume(undefined, { n1: { action: "edit", arguments: { to: "b" } } });
    expect(result.text).toBe('saw: renamed to b, not {"to":"a"} as you asked');

    // An edit the tool refuses gets the generic note: the tool never ran to explain it.
    const refused = new Agent({ model: scriptedModel([turn, echo]), tools: [rename] });
    await refused.run("go");
    const failed = await refused.resume(undefined, { n1: { action: "edit", arguments: { to: "" } } });
    expect(failed.text).toMatch(/The user edited this call before approving it; it ran with these arguments instead of yours: \{"to":""\}$/);

    const approved = new Agent({ model: scriptedModel([turn, echo]), tools: [rename] });
    await approved.run("go");
    expect((await approved.resume(undefined, { n1: { action: "approve" } })).text).toBe("saw: renamed to a");
    expect(seen).toEqual(['{"to":"a"}', undefined]);
  });

  it("refuses incomplete or mismatched decisions without losing the pending turn", async () => {
    const { agent } = await pausedAgent();
    await expect(agent.resume(undefined, {})).rejects.toThrow(/missing: w1 \(write_note\)/);
    await expect(agent.resume(undefined, { w1: { action: "answer", text: "yes" } })).rejects.toThrow(/approve, edit or reject/);
    await expect(agent.resume(undefined, { w1: { action: "approve" }, zz: { action: "approve" } })).rejects.toThrow(
      /not pending: zz/,
    );
    expect(agent.pending.map((c) => c.id)).toEqual(["w1"]);
  });

  it("pauses on ask_user and resumes with the answer", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "ask_user", arguments: { question: "Which city?" }, id: "q1" }] },
      (req) => `Booking ${req.messages.at(-1)?.content}.`,
    ]);
    const agent = new Agent({ model, tools: [askUserTool()] });
    const paused = await agent.run("book a trip");
    expect(paused.pending).toEqual([{ id: "q1", name: "ask_user", arguments: '{"question":"Which city?"}', kind: "question" }]);
    const done = await agent.resume(undefined, { q1: { action: "answer", text: "Lisbon" } });
    expect(done.text).toBe("Booking Lisbon.");
  });
});

describe("review regressions", () => {
  it("judges tools of a non-planning plugin (an MCP server's) as write tools, not planning tools", async () => {
    const ws = workspace();
    const external: Plugin = { name: "mcp:files", planningTools: false, tools: () => [ws.tools[1]!] };
    const turn = { toolCalls: [{ name: "write_note", arguments: { path: "a", text: "x" }, id: "w" }] };
    const agent = new Agent({ model: scriptedModel([turn, "ok"]), plugins: [external], permissions: {} });
    const result = await agent.run("go");
    expect(result.stopReason).toBe("awaiting-user");
    expect(ws.writes).toEqual([]);
  });

  it("never holds a call with bad arguments for approval: the model gets the error at once", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "ask_user", arguments: '{"question": ', id: "q" }] },
      (req) => `saw: ${req.messages.at(-1)?.content.slice(0, 43)}`,
    ]);
    const agent = new Agent({ model, tools: [askUserTool()] });
    const result = await agent.run("go");
    expect(result.stopReason).toBe("final");
    expect(result.text).toBe('saw: Arguments for tool "ask_user" are not valid');
  });
});
