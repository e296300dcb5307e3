import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Tool } from "../core/tool.js";
import { bearerToken, HostNeedsTokenError, isLoopback, loopbackHostCheck, originCheck, tokenCheck } from "./http-access.js";
import { sharedPlanningWatch } from "./mcp-planning-watch.js";
import { createMcpServer, type McpServerOptions } from "./mcp-server.js";

export interface McpSessionInfo {
  readonly sessionId: string;
}

/** Why a session ended: the client ended it, it never came back after initialize, it went idle, or the server stopped. */
export type McpSessionCloseReason = "ended" | "unused" | "idle" | "server-closed";

/** A session opened (initialize answered) or closed; `client` is the remote address it came from. */
export type McpSessionEvent =
  | { type: "opened"; sessionId: string; client: string }
  | { type: "closed"; sessionId: string; client: string; reason: McpSessionCloseReason };

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
  /**
   * How long a new session may wait for its second request before it is closed as unused (default
   * 10 s; never longer than `sessionIdleMs`). A real client follows initialize at once with its
   * `initialized` notification, so only sessions nobody uses are reaped this soon.
   */
  sessionGraceMs?: number;
  /** Most sessions one client (remote address) may hold at once (default 32), so one caller cannot take them all. */
  maxSessionsPerClient?: number;
  /**
   * Web pages (origins such as `https://app.example.com`) allowed to call the server from a browser.
   * A request with any other `Origin` is refused with 403; clients that are not browsers send none.
   */
  allowedOrigins?: readonly string[];
  /** Told when a session opens or closes, and why it closed: for logs, or to watch the server. */
  onSessionEvent?: (event: McpSessionEvent) => void;
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
const DEFAULT_SESSION_GRACE_MS = 10_000;
const DEFAULT_MAX_SESSIONS = 100;
const DEFAULT_MAX_SESSIONS_PER_CLIENT = 32;
/** Retry-After when no session is about to be reaped, so when one frees up is unknown. */
const UNKNOWN_RETRY_AFTER_S = 60;
// Lets the operating system notice a client that vanished without closing its connection (a cut
// network), so its event stream ends and its session can go idle.
const KEEP_ALIVE_DELAY_MS = 60_000;

type Session = {
  readonly id: string;
  readonly client: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** Requests seen so far; a session with only its initialize is reaped after the grace period. */
  requests: number;
  /** Requests (event streams included) not yet answered. */
  open: number;
  idleTimer?: NodeJS.Timeout;
  closeReason?: McpSessionCloseReason;
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
    throw new HostNeedsTokenError(
      `Refusing to serve MCP on ${host} without a token: anyone who can reach it could change the board. ` +
        "Pass a bearer token, or bind to 127.0.0.1.",
    );
  }
  const tokenMatches = opts.token ? tokenCheck(opts.token) : () => true;
  const originAllowed = originCheck(opts.allowedOrigins ?? []);
  const idleMs = opts.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const graceMs = Math.min(opts.sessionGraceMs ?? DEFAULT_SESSION_GRACE_MS, idleMs);
  const maxSessions = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const maxPerClient = opts.maxSessionsPerClient ?? DEFAULT_MAX_SESSIONS_PER_CLIENT;
  /** Initialized sessions, by id. */
  const sessions = new Map<string, Session>();
  /** Places taken, per client: sessions open and sessions being set up by an initialize still in progress. */
  const taken = new Map<string, number>();
  let takenInAll = 0;
  // Set once the port is known; beyond loopback the token is the guard.
  let hostAllowed: (hostHeader: string | undefined) => boolean = () => true;

  /** Why `client` may not open one more session now, if it may not. */
  function limitRefusal(client: string): { message: string; limit: string; max: number; retryAfterSeconds: number } | undefined {
    const mine = taken.get(client) ?? 0;
    const clientFull = mine >= maxPerClient;
    if (!clientFull && takenInAll < maxSessions) return undefined;
    // A session that never made its second request is reaped within the grace period.
    const reapable = [...sessions.values()].some((session) => session.requests === 1 && (!clientFull || session.client === client));
    const retryAfterSeconds = reapable ? Math.max(1, Math.ceil(graceMs / 1000)) : UNKNOWN_RETRY_AFTER_S;
    return clientFull
      ? {
          message:
            `Service unavailable: ${client} has ${mine} sessions open, the most one client may hold (maxSessionsPerClient). ` +
            `End one you no longer use (DELETE with its Mcp-Session-Id) or try again in ${retryAfterSeconds} s.`,
          limit: "maxSessionsPerClient",
          max: maxPerClient,
          retryAfterSeconds,
        }
      : {
          message: `Service unavailable: ${maxSessions} sessions are open, the most this server allows (maxSessions). Try again in ${retryAfterSeconds} s.`,
          limit: "maxSessions",
          max: maxSessions,
          retryAfterSeconds,
        };
  }

  /** Takes a place under the limits for `client`; the returned function gives it back once. */
  function takePlace(client: string): () => void {
    taken.set(client, (taken.get(client) ?? 0) + 1);
    takenInAll++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      takenInAll--;
      const left = (taken.get(client) ?? 1) - 1;
      if (left > 0) taken.set(client, left);
      else taken.delete(client);
    };
  }

  const toolsFor = (session: McpSessionInfo) => ("tools" in opts ? opts.tools : opts.toolsFactory(session));
  // One watch of the plans and the board for every session, closed with the server.
  const planning = await sharedPlanningWatch(opts.planning);
  const serverOptions: McpServerOptions = { ...opts, ...(planning.watch ? { planning: planning.watch } : {}) };

  async function openSession(client: string, release: () => void): Promise<Session> {
    const id = randomUUID();
    const server = createMcpServer(await toolsFor({ sessionId: id }), serverOptions);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => {
        sessions.set(id, session);
        opts.onSessionEvent?.({ type: "opened", sessionId: id, client });
      },
    });
    const session: Session = { id, client, transport, server, requests: 0, open: 0 };
    // Also runs when the client ends the session itself (DELETE); gives back its place under the limits.
    transport.onclose = () => {
      clearTimeout(session.idleTimer);
      release();
      if (!sessions.delete(id)) return;
      opts.onSessionEvent?.({ type: "closed", sessionId: id, client, reason: session.closeReason ?? "ended" });
    };
    await server.connect(transport);
    return session;
  }

  function closeSession(session: Session, reason: McpSessionCloseReason): Promise<void> {
    clearTimeout(session.idleTimer);
    session.closeReason ??= reason;
    session.closing ??= session.server.close();
    return session.closing;
  }

  /**
   * Counts the request as open until its response ends. Once none is open, the session is closed
   * after the grace period if initialize was all it ever saw, else after the idle time.
   */
  function track(session: Session, res: ServerResponse): void {
    session.requests++;
    session.open++;
    clearTimeout(session.idleTimer);
    res.once("close", () => {
      if (--session.open > 0 || session.closing) return;
      const unused = session.requests === 1;
      session.idleTimer = setTimeout(() => void closeSession(session, unused ? "unused" : "idle").catch(() => undefined), unused ? graceMs : idleMs).unref();
    });
  }

  /** Serves an initialize request on a new session; a session the request did not initialize is closed. */
  async function serveNewSession(req: IncomingMessage, res: ServerResponse, client: string): Promise<void> {
    const refusal = limitRefusal(client);
    if (refusal) {
      const { message, ...data } = refusal;
      res.setHeader("Retry-After", String(refusal.retryAfterSeconds));
      return replyError(res, 503, message, data);
    }
    const release = takePlace(client);
    let session: Session | undefined;
    try {
      session = await openSession(client, release);
      track(session, res);
      await session.transport.handleRequest(req, res);
    } catch (error) {
      release();
      if (session) await closeSession(session, "ended").catch(() => undefined);
      throw error;
    }
    // Anything but an initialize request was refused by the transport; drop the unused session.
    if (session.transport.sessionId === undefined) await closeSession(session, "ended");
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostAllowed(req.headers.host)) return replyError(res, 403, "Forbidden: this server only answers to its own loopback address.");
    if (!originAllowed(req.headers.origin)) {
      return replyError(res, 403, `Forbidden: requests from the web page ${JSON.stringify((req.headers.origin ?? "").slice(0, 100))} are refused; list a page's origin in allowedOrigins to let it in.`);
    }
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
    return serveNewSession(req, res, clientOf(req));
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
      await Promise.all([...sessions.values()].map((session) => closeSession(session, "server-closed")));
      await planning.close();
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

function replyError(res: ServerResponse, status: number, message: string, data?: object): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message, ...(data ? { data } : {}) }, id: null }));
}

/** The remote address a request came from, IPv4 addresses written the same whether or not the socket is dual-stack. */
function clientOf(req: IncomingMessage): string {
  const address = req.socket.remoteAddress ?? "unknown";
  return address.startsWith("::ffff:") ? address.slice(7) : address;
}
