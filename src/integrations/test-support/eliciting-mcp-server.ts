import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/**
 * A stateful MCP server (elicitation needs a session: the answer comes back on a later request)
 * with a tool, `book_room`, that asks the user for a form whose fields all have defaults and
 * returns what it was answered, as JSON, and one that asks nothing, `list_rooms`.
 */
export async function startElicitingMcpServer(): Promise<{ url: string; answers: unknown[]; stop(): Promise<void> }> {
  /** Every answer the server got, in order. */
  const answers: unknown[] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    const id = req.headers["mcp-session-id"];
    const existing = typeof id === "string" ? transports.get(id) : undefined;
    if (existing) return void existing.handleRequest(req, res);
    const server = createElicitingMcpServer(answers);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void transports.set(sessionId, transport),
    });
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    answers,
    stop: async () => {
      await Promise.all([...transports.values()].map((t) => t.close()));
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    },
  };
}

/** The server behind both transports: `book_room` asks its form and answers with what it got; every answer goes to `answers`. */
export function createElicitingMcpServer(answers: unknown[] = []): McpServer {
  const server = new McpServer({ name: "eliciting-server", version: "1.0.0" });
  server.registerTool("book_room", { description: "Books a room; asks the user which." }, async () => {
    const answer = await server.server.elicitInput({
      message: "Which room?",
      requestedSchema: {
        type: "object",
        properties: {
          room: { type: "string", description: "Room name", default: "Lovelace" },
          seats: { type: "integer", description: "Seats", default: 6 },
          projector: { type: "boolean", description: "Needs a projector", default: true },
        },
        required: [],
      },
    });
    answers.push(answer);
    return { content: [{ type: "text", text: JSON.stringify(answer) }] };
  });
  server.registerTool("list_rooms", { description: "Lists the rooms; asks nothing." }, async () => ({
    content: [{ type: "text", text: "Lovelace, Turing, Hopper" }],
  }));
  return server;
}
