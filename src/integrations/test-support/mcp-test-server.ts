import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * A small MCP server for tests: a read-only calculator, a multi-part answer, a tool that reports an
 * error, a dotted tool name, and tools that reveal its process id, environment and request headers.
 * `notes` is where save_note keeps its notes, shared by callers that make one server per request.
 */
export function createTestMcpServer(notes: string[] = []): McpServer {
  const server = new McpServer({ name: "stepwise-test-server", version: "1.0.0" });

  server.registerTool(
    "add",
    {
      description: "Adds two numbers.",
      inputSchema: { a: z.number().describe("First number"), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "save_note",
    { description: "Stores a note.", inputSchema: { text: z.string(), tags: z.array(z.string()).optional() }, annotations: { destructiveHint: false } },
    ({ text, tags }) => {
      notes.push(text);
      return { content: [{ type: "text", text: `saved note ${notes.length}` }, { type: "text", text: `tags: ${(tags ?? []).join(",") || "none"}` }] };
    },
  );
  server.registerTool("notes.count", { description: "Counts stored notes.", annotations: { readOnlyHint: true } }, () => ({
    content: [{ type: "text", text: `${notes.length} notes` }],
  }));
  server.registerTool("fetch_archive", { description: "Always fails: the archive is offline." }, () => ({
    content: [{ type: "text", text: "the archive is offline" }],
    isError: true,
  }));
  server.registerTool("process_id", { description: "The server's process id." }, () => ({
    content: [{ type: "text", text: String(process.pid) }],
  }));
  server.registerTool("read_env", { description: "Reads an environment variable.", inputSchema: { name: z.string() } }, ({ name }) => ({
    content: [{ type: "text", text: process.env[name] ?? "(unset)" }],
  }));
  server.registerTool("read_header", { description: "Reads a request header (HTTP only).", inputSchema: { name: z.string() } }, ({ name }, extra) => ({
    content: [{ type: "text", text: String(extra.requestInfo?.headers[name] ?? "(none)") }],
  }));
  return server;
}
