import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createTestMcpServer } from "./mcp-test-server.js";

export type RunningHttpMcpServer = { url: string; stop(): Promise<void> };

/** Serves the test MCP server over stateless Streamable HTTP on 127.0.0.1, on a free port. */
export async function startHttpMcpServer(): Promise<RunningHttpMcpServer> {
  const notes: string[] = [];
  const http = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405, { "content-type": "application/json" }).end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Method not allowed."},"id":null}');
      return;
    }
    // Stateless: every request gets its own server and transport, closed when the response ends.
    const server = createTestMcpServer(notes);
    const transport = new StreamableHTTPServerTransport({}); // no sessionIdGenerator: stateless
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
