import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Tool } from "../core/tool.js";
import { bearerToken, isLoopback, loopbackHostCheck, tokenCheck } from "./http-access.js";
import { sharedPlanningWatch } from "./mcp-planning-watch.js";
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
  /**
   * How long a session may go with no request open before it is closed (default 30 minutes). A
   * connected client keeps its event stream open, so this ends the sessions of clients that went away.
   */
  sessionIdleMs?: number;
  /** Most sessions open at once (default 100); a client asking for one more gets 503 until one ends. */
  maxSessions?: number;
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

const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
const DEFAULT_MAX_SESSIONS = 100;
// Lets the operating system notice a client that vanished without closing its connection (a cut
// network), so its event stream ends and its session can go idle.
const KEEP_ALIVE_DELAY_MS = 60_000;

type Session = {
  readonly id: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Requests (event streams included) not yet answered. */
  open: number;
  idleTimer?: NodeJS.Timeout;
  closing?: Promise<void>;
};

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
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  /** Initialized sessions, by id. */
  const sessions = new Map<string, Session>();
  /** Sessions being set up by an initialize request still in progress: they count towards the cap. */
  let opening = 0;
  // Set once the port is known; beyond loopback the token is the guard.
  let hostAllowed: (hostHeader: string | undefined) => boolean = () => true;

  const toolsFor = (session: McpSessionInfo) => ("tools" in opts ? opts.tools : opts.toolsFactory(session));
  // One watch of the plans and the board for every session, closed with the server.
  const planning = await sharedPlanningWatch(opts.planning);
  const serverOptions: McpServerOptions = { ...opts, ...(planning.watch ? { planning: planning.watch } : {}) };

  async function openSession(): Promise<Session> {
    const id = randomUUID();
    const server = createMcpServer(await toolsFor({ sessionId: id }), serverOptions);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => void sessions.set(id, session),
    });
    const session: Session = { id, transport, server, open: 0 };
    // Also runs when the client ends the session itself (DELETE).
    transport.onclose = () => {
      clearTimeout(session.idleTimer);
      sessions.delete(id);
    };
    await server.connect(transport);
    return session;
  }

  function closeSession(session: Session): Promise<void> {
    clearTimeout(session.idleTimer);
    sessions.delete(session.id);
    session.closing ??= session.server.close();
    return session.closing;
  }

  /** Counts the request as open until its response ends; the idle clock runs only while none is open. */
  function track(session: Session, res: ServerResponse): void {
    session.open++;
    clearTimeout(session.idleTimer);
    res.once("close", () => {
      if (--session.open > 0 || session.closing) return;
      session.idleTimer = setTimeout(() => void closeSession(session).catch(() => undefined), idleMs).unref();
    });
  }

  /** Serves an initialize request on a new session; a session the request did not initialize is closed. */
  async function serveNewSession(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (sessions.size + opening >= maxSessions) {
      res.setHeader("Retry-After", "60");
      return replyError(res, 503, `Service unavailable: ${maxSessions} sessions are open, the most this server allows. Try again later.`);
    }
    opening++;
    let session: Session | undefined;
    try {
      session = await openSession();
      track(session, res);
      await session.transport.handleRequest(req, res);
    } catch (error) {
      if (session) await closeSession(session).catch(() => undefined);
      throw error;
    } finally {
      opening--;
    }
    // Anything but an initialize request was refused by the transport; drop the unused session.
    if (session.transport.sessionId === undefined) await closeSession(session);
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
      track(session, res);
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return replyError(res, 400, "Bad request: start a session with an initialize request (POST).");
    return serveNewSession(req, res);
  }

  const httpServer = createServer({ keepAlive: true, keepAliveInitialDelay: KEEP_ALIVE_DELAY_MS }, (req, res) => {
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
      await Promise.all([...sessions.values()].map(closeSession));
      await planning.close();
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
