import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Tool } from "../core/tool.js";
import { bearerToken, isLoopback, loopbackHostCheck, tokenCheck } from "./http-access.js";
import { createMcpServer, type McpServerOptions } from "./mcp-server.js";

export interface McpSessionInfo {
  readonly sessionId: string;
}

export type McpHttpServerOptions = McpServerOptions & {
  /** Where to listen (default 127.0.0.1). Any other address needs a `token`. */
  host?: string;
  /** Default 0: a free port, read it from `url`. */
  port?: number;
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
} & (
    | { tools: readonly Tool[] }
    /** Tools for each new client session; return tools over one shared store to share a board. */
    | { toolsFactory: (session: McpSessionInfo) => readonly Tool[] | Promise<readonly Tool[]> }
  );

export interface McpHttpServer {
  /** The Streamable HTTP endpoint, e.g. http://127.0.0.1:41234/mcp */
  readonly url: string;
  close(): Promise<void>;
}

const ENDPOINT = "/mcp";

type Session = { transport: StreamableHTTPServerTransport; server: McpServer };

/**
 * Serves tools over MCP's Streamable HTTP transport, one stateful session per client. The tools
 * themselves hold the state, so every client connected to the same tools sees the same board.
 */
export async function startMcpHttpServer(opts: McpHttpServerOptions): Promise<McpHttpServer> {
  const host = opts.host ?? "127.0.0.1";
  const loopback = isLoopback(host);
  if (!loopback && !opts.token) {
    throw new Error(
      `Refusing to serve MCP on ${host} without a token: anyone who can reach it could change the board. ` +
        "Pass a bearer token, or bind to 127.0.0.1.",
    );
  }
  const tokenMatches = opts.token ? tokenCheck(opts.token) : () => true;
  const sessions = new Map<string, Session>();
  // Set once the port is known; beyond loopback the token is the guard.
  let hostAllowed: (hostHeader: string | undefined) => boolean = () => true;

  const toolsFor = (session: McpSessionInfo) => ("tools" in opts ? opts.tools : opts.toolsFactory(session));

  async function openSession(): Promise<Session> {
    const sessionId = randomUUID();
    const server = createMcpServer(await toolsFor({ sessionId }), opts);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      onsessioninitialized: (id) => void sessions.set(id, session),
    });
    transport.onclose = () => void sessions.delete(sessionId);
    const session: Session = { transport, server };
    await server.connect(transport);
    return session;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host)) return replyError(res, 403, "Forbidden: this server only answers to its own loopback address.");
    if (!tokenMatches(bearerToken(req.headers.authorization))) {
      res.setHeader("WWW-Authenticate", 'Bearer realm="stepwise"');
      return replyError(res, 401, "Unauthorized: send the server's token as 'Authorization: Bearer <token>'.");
    }
    if (new URL(req.url ?? "/", "http://localhost").pathname !== ENDPOINT) {
      return replyError(res, 404, `Not found: the MCP endpoint is ${ENDPOINT}.`);
    }
    const sessionId = req.headers["mcp-session-id"];
    if (typeof sessionId === "string") {
      const session = sessions.get(sessionId);
      // 404 tells a client its session is gone and it should initialize a new one.
      if (!session) return replyError(res, 404, "Session not found: start a new session with an initialize request.");
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return replyError(res, 400, "Bad request: start a session with an initialize request (POST).");
    const session = await openSession();
    await session.transport.handleRequest(req, res);
    // Anything but an initialize request was refused by the transport; drop the unused session.
    if (session.transport.sessionId === undefined) await session.server.close();
  }

  const httpServer = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) replyError(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(opts.port ?? 0, host, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  const { port } = httpServer.address() as AddressInfo;
  if (loopback) hostAllowed = loopbackHostCheck(port);

  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}${ENDPOINT}`,
    async close() {
      await Promise.all([...sessions.values()].map((session) => session.server.close()));
      sessions.clear();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

function replyError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
