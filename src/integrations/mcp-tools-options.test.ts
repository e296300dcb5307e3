import { describe, expect, it } from "vitest";
import { Agent } from "../core/agent.js";
import { scriptedModel } from "../models/scripted.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { mcpTools, type McpElicitation } from "./mcp-tools.js";
import { startElicitingMcpServer } from "./test-support/eliciting-mcp-server.js";
import { startHttpMcpServer } from "./test-support/mcp-http-server.js";
import { startMcpHttpServer } from "./mcp-http-server.js";

describe("mcpTools options", () => {
  it("prefixes names and keeps only the included tools less the excluded ones", async () => {
    const server = await startHttpMcpServer();
    try {
      const all = await mcpTools({ url: server.url });
      const names = all.tools().map((t) => t.name);
      await all.close();
      expect(names.length).toBeGreaterThan(2);
      const [first, second] = names as [string, string];

      const some = await mcpTools({ url: server.url }, { prefix: "ext_", include: [first, second, "no-such-tool"], exclude: [second] });
      expect(some.tools().map((t) => t.name)).toEqual([`ext_${first}`]);
      // The prefixed tool still calls the server's tool by its own name.
      const result = await some.tools()[0]!.invoke({});
      expect(result.text).not.toMatch(/not found|unknown tool/i);
      await some.close();

      const wildcard = await mcpTools({ url: server.url }, { include: ["*"], exclude: [`${first.slice(0, 2)}*`] });
      expect(wildcard.tools().map((t) => t.name)).toEqual(names.filter((n) => !n.startsWith(first.slice(0, 2))));
      await wildcard.close();
    } finally {
      await server.stop();
    }
  });

  it("lets a server's plan tools sit beside a PlanNotebook once prefixed", async () => {
    const remoteNotebook = new PlanNotebook();
    const remote = await startMcpHttpServer({ tools: remoteNotebook.tools() });
    try {
      const clashing = await mcpTools({ url: remote.url });
      expect(() => new Agent({ model: scriptedModel(["ok"]), plugins: [new PlanNotebook(), clashing] })).toThrow(/Two tools are named "create_plan"[\s\S]*prefix/);
      await clashing.close();

      const prefixed = await mcpTools({ url: remote.url }, { prefix: "team_" });
      const agent = new Agent({ model: scriptedModel(["ok"]), plugins: [new PlanNotebook(), prefixed] });
      expect(agent.toolkit.names).toEqual(expect.arrayContaining(["create_plan", "team_create_plan"]));
      await agent.close();
    } finally {
      await remote.close();
    }
  });

  it("answers a server's elicitation with the user's answer, defaults filled for omitted fields", async () => {
    const server = await startElicitingMcpServer();
    const asked: McpElicitation[] = [];
    try {
      const mcp = await mcpTools(
        { url: server.url },
        {
          elicit: async (request) => {
            asked.push(request);
            return { action: "accept", content: { seats: 12 } };
          },
        },
      );
      const result = await mcp.tools().find((t) => t.name === "book_room")!.invoke({});
      expect(asked[0]?.message).toBe("Which room?");
      expect(JSON.parse(result.text)).toEqual({ action: "accept", content: { room: "Lovelace", seats: 12, projector: true } });
      await mcp.close();
    } finally {
      await server.stop();
    }
  });

  it("offers no elicitation with elicit: false, so the server's call fails plainly", async () => {
    const server = await startElicitingMcpServer();
    try {
      const mcp = await mcpTools({ url: server.url }, { elicit: false });
      const result = await mcp.tools().find((t) => t.name === "book_room")!.invoke({});
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/elicitation/i);
      await mcp.close();
    } finally {
      await server.stop();
    }
  });

  it("dismisses a question asked outside an agent, where nobody can answer it", async () => {
    const server = await startElicitingMcpServer();
    try {
      const mcp = await mcpTools({ url: server.url });
      const result = await mcp.tools().find((t) => t.name === "book_room")!.invoke({});
      expect(JSON.parse(result.text)).toEqual({ action: "cancel" });
      await mcp.close();
    } finally {
      await server.stop();
    }
  });
});
