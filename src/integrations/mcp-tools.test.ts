import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../core/agent.js";
import { scriptedModel } from "../models/scripted.js";
import { mcpTools, type McpTools } from "./mcp-tools.js";
import { startHttpMcpServer } from "./test-support/mcp-http-server.js";

const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
const STDIO_SERVER = fileURLToPath(new URL("./test-support/mcp-stdio-server.ts", import.meta.url));
const SERVER_NAME = "stepwise-test-server";

type Connected = { mcp: McpTools; stopServer(): Promise<void> };

async function connectStdio(env?: Record<string, string>): Promise<Connected> {
  const mcp = await mcpTools({ command: TSX, args: [STDIO_SERVER], ...(env ? { env } : {}) });
  // The server process itself (tsx runs it as its own child), to kill as a crash would.
  const pid = Number((await tool(mcp, "process_id").invoke({})).text);
  return {
    mcp,
    async stopServer() {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}

async function connectHttp(): Promise<Connected> {
  const server = await startHttpMcpServer();
  const mcp = await mcpTools({ url: server.url, headers: { "x-team": "planners" } });
  return { mcp, stopServer: () => server.stop() };
}

function tool(mcp: McpTools, name: string) {
  const found = mcp.tools().find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

describe.each([
  ["stdio", () => connectStdio()],
  ["Streamable HTTP", connectHttp],
])("mcpTools over %s", (_transport, connect) => {
  let connected: Connected;
  beforeAll(async () => {
    connected = await connect();
  });
  afterAll(async () => {
    await connected.mcp.close();
    await connected.stopServer().catch(() => {});
  });

  it("lists the server's tools under model-safe names, as a plugin named for the server", () => {
    const { mcp } = connected;
    expect(mcp.name).toBe(`mcp:${SERVER_NAME}`);
    expect(mcp.tools().map((t) => t.name)).toEqual(["add", "save_note", "notes_count", "fetch_archive", "process_id", "read_env", "read_header"]);
  });

  it("passes on the server's JSON Schema, description and read-only hint", () => {
    const add = tool(connected.mcp, "add");
    expect(add.description).toBe("Adds two numbers.");
    expect(add.readOnly).toBe(true);
    expect(add.parameters).toMatchObject({
      type: "object",
      properties: { a: { type: "number", description: "First number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(add.parameters).not.toHaveProperty("$schema");
    expect(tool(connected.mcp, "save_note").readOnly).toBe(false);
    expect(tool(connected.mcp, "notes_count").readOnly).toBe(true);
  });

  it("calls a tool with an object or its JSON text, joining the text parts of the result", async () => {
    expect(await tool(connected.mcp, "add").invoke({ a: 2, b: 3 })).toEqual({ text: "5", isError: false });
    expect(await tool(connected.mcp, "add").invoke('{"a": 40, "b": 2}')).toEqual({ text: "42", isError: false });
    const saved = await tool(connected.mcp, "save_note").invoke({ text: "buy milk", tags: ["home", "today"] });
    expect(saved).toEqual({ text: "saved note 1\ntags: home,today", isError: false });
    expect(await tool(connected.mcp, "notes_count").invoke({})).toEqual({ text: "1 notes", isError: false });
  });

  it("answers bad JSON and arguments that break the schema with error results naming the problem", async () => {
    const badJson = await tool(connected.mcp, "add").invoke('{"a": 1, ');
    expect(badJson.isError).toBe(true);
    expect(badJson.text).toContain("not valid JSON");
    expect(badJson.text).toContain("{ a: number, b: number }");
    const wrongType = await tool(connected.mcp, "add").invoke({ a: "one", b: 2 });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.text).toMatch(/- a: .*number/);
    expect(await tool(connected.mcp, "add").invoke({ a: 1, b: 1 })).toEqual({ text: "2", isError: false });
  });

  it("maps the server's error result to an error result", async () => {
    expect(await tool(connected.mcp, "fetch_archive").invoke({})).toEqual({ text: "the archive is offline", isError: true });
  });

  it("works as an agent plugin", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "add", arguments: { a: 20, b: 22 } }] },
      (req) => `The sum is ${String(req.messages.at(-1)?.content)}.`,
    ]);
    const agent = new Agent({ model, plugins: [connected.mcp] });
    expect((await agent.run("What is 20 + 22?")).text).toBe("The sum is 42.");
    expect(model.requests[0]?.tools.map((t) => t.name)).toContain("add");
  });

  it("turns calls into error results once the server has gone, in the middle of a run", async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
      () => ({ toolCalls: [{ name: "add", arguments: { a: 2, b: 2 } }] }),
      (req) => `After the crash: ${String(req.messages.at(-1)?.content)}`,
    ]);
    const agent = new Agent({ model, plugins: [connected.mcp] });
    // The server goes away right after the first call has been answered.
    agent.on((event) => {
      if (event.type === "tool-end" && event.result.text === "3") void connected.stopServer();
    });
    const result = await agent.run("add twice");
    expect(result.stopReason).toBe("final");
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", content: "3" });
    expect(result.text).toMatch(new RegExp(`^After the crash: MCP server "${SERVER_NAME}" is not reachable: .+`));
    const later = await tool(connected.mcp, "add").invoke({ a: 1, b: 1 });
    expect(later.isError).toBe(true);
    expect(later.text).toContain("is not reachable");
  });
});

describe("mcpTools connection details", () => {
  it("starts a stdio server with the given environment added to the default one", async () => {
    const { mcp, stopServer } = await connectStdio({ STEPWISE_GREETING: "hello from the test" });
    try {
      expect((await tool(mcp, "read_env").invoke({ name: "STEPWISE_GREETING" })).text).toBe("hello from the test");
      expect((await tool(mcp, "read_env").invoke({ name: "PATH" })).text).not.toBe("(unset)");
    } finally {
      await mcp.close();
      await stopServer();
    }
  });

  it("sends the given headers with every HTTP request", async () => {
    const { mcp, stopServer } = await connectHttp();
    try {
      expect((await tool(mcp, "read_header").invoke({ name: "x-team" })).text).toBe("planners");
    } finally {
      await mcp.close();
      await stopServer();
    }
  });

  it("after close(), answers calls with an error result, and closing again is harmless", async () => {
    const { mcp, stopServer } = await connectStdio();
    await mcp.close();
    await mcp.close();
    const result = await tool(mcp, "add").invoke({ a: 1, b: 2 });
    expect(result).toEqual({
      text: `MCP server "${SERVER_NAME}" is not reachable: the connection was closed. Its tools cannot be used now; go on without them or tell the user.`,
      isError: true,
    });
    await stopServer();
  });

  it("closes its connection with the agent it was given to", async () => {
    const { mcp, stopServer } = await connectHttp();
    const agent = new Agent({ model: scriptedModel([]), plugins: [mcp] });
    await agent.close();
    expect((await tool(mcp, "add").invoke({ a: 1, b: 2 })).text).toMatch(/is not reachable: the connection was closed/);
    await stopServer();
  });

  it("rejects with a readable error when the server cannot be started or reached", async () => {
    await expect(mcpTools({ command: "stepwise-no-such-command" })).rejects.toThrow(
      /^Could not connect to MCP server stepwise-no-such-command: .*ENOENT/,
    );
    await expect(mcpTools({ command: process.execPath, args: ["-e", "process.exit(3)"] })).rejects.toThrow(/Could not connect to MCP server .*Connection closed/);
    const server = await startHttpMcpServer();
    await server.stop();
    const unreachable = await mcpTools({ url: `${server.url}?token=secret` }).catch((error: unknown) => String(error));
    expect(unreachable).toMatch(/^Error: Could not connect to MCP server http:\/\/127\.0\.0\.1:\d+\/mcp: /);
    expect(unreachable).not.toContain("secret");
  });
});
