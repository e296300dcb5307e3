import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../core/agent.js";
import type { AgentEvent } from "../core/events.js";
import { scriptedModel } from "../models/scripted.js";
import { mcpTools, type McpTools } from "./mcp-tools.js";
import { HUGE_RESULT_CHARACTERS, startHostileHttpMcpServer, type HostileBehaviour } from "./test-support/hostile-mcp-server.js";

const open: { mcp?: McpTools; stop(): Promise<void> }[] = [];
afterEach(async () => {
  for (const { mcp, stop } of open.splice(0)) {
    await mcp?.close();
    await stop();
  }
});

async function hostile(behaviour: HostileBehaviour) {
  const server = await startHostileHttpMcpServer(behaviour);
  const entry: (typeof open)[number] = { stop: server.stop };
  open.push(entry);
  return { ...server, connect: async (opts: Parameters<typeof mcpTools>[1] = {}) => (entry.mcp = await mcpTools({ url: server.url }, opts)) };
}

describe("mcpTools against a server that lists too much", () => {
  it("stops a tool list that pages forever after 100 pages, keeps what came and says so", async () => {
    const server = await hostile("endless-pages");
    const mcp = await server.connect();
    expect(server.served.listPages).toBe(100);
    expect(mcp.tools()).toHaveLength(100);
    expect(mcp.notices).toEqual(['MCP server "hostile-endless-pages": its tool list went on past 100 pages, so only the 100 tools on them were considered']);
  });

  it("offers the first 100 of 30,000 tools, asks for no page past them, and tells the agent's listeners what was left out", async () => {
    const server = await hostile("many-tools");
    const mcp = await server.connect({ prefix: "many_" });
    expect(server.served.listPages).toBe(1);
    expect(mcp.tools().map((t) => t.name).slice(0, 2)).toEqual(["many_tool_0", "many_tool_1"]);
    expect(mcp.tools()).toHaveLength(100);
    expect(mcp.notices).toEqual([
      'MCP server "hostile-many-tools": only its first 100 tools are offered to the model and the rest were left out (the server has more); raise maxTools or choose with include',
    ]);
    const model = scriptedModel(["done", "again"]);
    const agent = new Agent({ model, plugins: [mcp] });
    const limited: AgentEvent[] = [];
    agent.on((event) => event.type === "mcp-tools-limited" && limited.push(event));
    await agent.run("hello");
    await agent.run("hello again");
    expect(model.requests[0]?.tools).toHaveLength(100);
    expect(limited.map((e) => e.type === "mcp-tools-limited" && e.notice)).toEqual([mcp.notices[0], mcp.notices[0]]);
  });

  it("stops listing at maxTools as given, and counts what was left out when the list ended", async () => {
    const server = await hostile("colliding-names");
    const mcp = await server.connect({ maxTools: 3 });
    expect(mcp.tools()).toHaveLength(3);
    expect(mcp.notices).toEqual([expect.stringContaining("only its first 3 tools are offered to the model and 1 more were left out")]);
  });

  it("fails plainly when the server never lists its tools within the time allowed", async () => {
    const server = await hostile("silent-list");
    await expect(server.connect({ listTimeoutMs: 300 })).rejects.toThrow(/Could not connect to MCP server .*timed out/i);
  });
});

describe("mcpTools names and results within the model's bounds", () => {
  it("gives tools whose model-safe names collide names of their own, the same on every connection, each calling its own tool", async () => {
    const server = await hostile("colliding-names");
    const names = async () => (await server.connect()).tools().map((t) => t.name);
    const first = await names();
    await open[0]?.mcp?.close();
    expect(await names()).toEqual(first);
    expect(new Set(first).size).toBe(4);
    for (const name of first) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(first[0]).toMatch(/^a{55}_[0-9a-f]{8}$/);
    const results = await Promise.all(open[0]!.mcp!.tools().map((t) => t.invoke({})));
    expect(results.map((r) => r.text)).toEqual([`called ${"a".repeat(70)}_one`, `called ${"a".repeat(70)}_two`, "called x.y", "called x_y"]);
  });

  it("passes an 8 MB result to the model cut to 40,000 characters, saying how much was left out", async () => {
    const server = await hostile("huge-result");
    const dump = (await server.connect()).tools()[0]!;
    const result = await dump.invoke({});
    expect(result.isError).toBe(false);
    expect(result.text).toBe(`${"x".repeat(40_000)}… (${HUGE_RESULT_CHARACTERS - 40_000} more characters left out)`);
  });
});
