import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { startMcpHttpServer, type McpHttpServer, type McpHttpServerOptions, type McpSessionEvent } from "./mcp-http-server.js";
import { noteTools } from "./test-support/note-tools.js";

const running: McpHttpServer[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(running.splice(0).map((server) => server.close()));
});

async function serve(opts: McpHttpServerOptions): Promise<McpHttpServer> {
  const server = await startMcpHttpServer(opts);
  running.push(server);
  return server;
}

async function connect(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit }));
  clients.push(client);
  return client;
}

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const content = result.content as { type: string; text?: string }[];
  return content.map((part) => part.text ?? "").join("");
}

describe("MCP server over Streamable HTTP", () => {
  it("lists the tools with their descriptions, input schemas and read-only hints", async () => {
    const server = await serve({ tools: noteTools() });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(server.url);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(["add_note", "list_notes"]);
    const addNote = byName.get("add_note");
    expect(addNote?.description).toBe("Add a note to the shared notepad.");
    expect(addNote?.inputSchema.properties).toMatchObject({ text: { type: "string", description: "The note" } });
    expect(addNote?.inputSchema.required).toEqual(["text"]);
    expect(addNote?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get("list_notes")?.annotations?.readOnlyHint).toBe(true);
  });

  it("runs a call and returns the tool's text", async () => {
    const client = await connect((await serve({ tools: noteTools() })).url);
    const added = await client.callTool({ name: "add_note", arguments: { text: "buy milk", pinned: true } });
    expect(added.isError).toBe(false);
    expect(textOf(added)).toBe("Added note 1.");
    expect(textOf(await client.callTool({ name: "list_notes", arguments: {} }))).toBe("1. [pinned] buy milk");
  });

  it("returns a rule the tool enforces and bad arguments as error results the caller can act on", async () => {
    const client = await connect((await serve({ tools: noteTools() })).url);
    await client.callTool({ name: "add_note", arguments: { text: "once" } });
    const repeated = await client.callTool({ name: "add_note", arguments: { text: "once" } });
    expect(repeated.isError).toBe(true);
    expect(textOf(repeated)).toBe('A note "once" exists already; call list_notes to see them.');
    const wrongType = await client.callTool({ name: "add_note", arguments: { text: 42 } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toContain("text");
  });

  it("lets two clients share one notepad", async () => {
    const server = await serve({ tools: noteTools() });
    const alice = await connect(server.url);
    const bob = await connect(server.url);
    await alice.callTool({ name: "add_note", arguments: { text: "from alice" } });
    await bob.callTool({ name: "add_note", arguments: { text: "from bob" } });
    expect(textOf(await bob.callTool({ name: "list_notes", arguments: {} }))).toBe("1. from alice\n2. from bob");
    expect(textOf(await alice.callTool({ name: "list_notes", arguments: {} }))).toBe("1. from alice\n2. from bob");
  });

  it("asks the tools factory once per client session", async () => {
    const shared = noteTools();
    const sessions: string[] = [];
    const server = await serve({
      toolsFactory: ({ sessionId }) => {
        sessions.push(sessionId);
        return shared;
      },
    });
    const first = await connect(server.url);
    const second = await connect(server.url);
    await first.callTool({ name: "add_note", arguments: { text: "seen by both" } });
    expect(textOf(await second.callTool({ name: "list_notes", arguments: {} }))).toBe("1. seen by both");
    expect(sessions).toHaveLength(2);
    expect(new Set(sessions).size).toBe(2);
  });

  it("refuses requests without the bearer token when one is set, and accepts it", async () => {
    const server = await serve({ tools: noteTools(), token: "s3cret" });
    await expect(connect(server.url)).rejects.toThrow(/401|Unauthorized/);
    await expect(connect(server.url, "wrong")).rejects.toThrow(/401|Unauthorized/);
    const refused = await fetch(server.url, { method: "POST", body: "{}", headers: { "Content-Type": "application/json" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    const client = await connect(server.url, "s3cret");
    expect(textOf(await client.callTool({ name: "list_notes", arguments: {} }))).toBe("No notes.");
  });

  it("refuses to bind beyond loopback without a token", async () => {
    await expect(startMcpHttpServer({ tools: noteTools(), host: "0.0.0.0" })).rejects.toThrow(/without a token/);
    const server = await serve({ tools: noteTools(), host: "0.0.0.0", token: "s3cret" });
    const local = server.url.replace("0.0.0.0", "127.0.0.1");
    const client = await connect(local, "s3cret");
    expect(textOf(await client.callTool({ name: "list_notes", arguments: {} }))).toBe("No notes.");
  });

  it("rejects a loopback request whose Host header names another site (DNS rebinding)", async () => {
    const server = await serve({ tools: noteTools() });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } },
      });
      const req = request(
        server.url,
        {
          method: "POST",
          headers: {
            Host: "attacker.example",
            "Content-Type": "application/json",
            Accept: "application/json, text/event-stream",
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
    expect(status).toBe(403);
  });

  describe("session lifetime", () => {
    const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    const initialize = (url: string) =>
      fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        }),
      });
    const listTools = (url: string, sessionId: string) =>
      fetch(url, { method: "POST", headers: { ...headers, "Mcp-Session-Id": sessionId }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });

    /** An initialize request on its own connection, optionally from another local address or a web page. */
    const rawInitialize = (url: string, from: { localAddress?: string; origin?: string } = {}) =>
      new Promise<{ status: number; retryAfter?: string; sessionId?: string; body: any }>((resolve, reject) => {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
        });
        const req = request(
          url,
          {
            method: "POST",
            agent: false,
            ...(from.localAddress ? { localAddress: from.localAddress } : {}),
            headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...(from.origin ? { Origin: from.origin } : {}) },
          },
          (res) => {
            let text = "";
            res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
            res.on("end", () => {
              // Answers come as JSON, or as one SSE message.
              const json = /^data: (.*)$/m.exec(text)?.[1] ?? text;
              resolve({
                status: res.statusCode ?? 0,
                ...(typeof res.headers["retry-after"] === "string" ? { retryAfter: res.headers["retry-after"] } : {}),
                ...(typeof res.headers["mcp-session-id"] === "string" ? { sessionId: res.headers["mcp-session-id"] } : {}),
                body: JSON.parse(json),
              });
            });
          },
        );
        req.on("error", reject);
        req.end(body);
      });

    /** Session events as they come, to wait on one at a time. */
    const sessionEvents = () => {
      const seen: McpSessionEvent[] = [];
      const waiting = new Map<number, (event: McpSessionEvent) => void>();
      let read = 0;
      return {
        seen,
        record: (event: McpSessionEvent) => {
          waiting.get(seen.push(event) - 1)?.(event);
        },
        next: (): Promise<McpSessionEvent> => {
          const index = read++;
          const ready = seen[index];
          return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.set(index, resolve));
        },
      };
    };

    it("closes a session that had no request open for sessionIdleMs (a client that went away)", async () => {
      const closed = sessionEvents();
      const server = await serve({ tools: noteTools(), sessionIdleMs: 50, onSessionEvent: closed.record });
      const opened = await initialize(server.url);
      await opened.body?.cancel();
      const sessionId = opened.headers.get("mcp-session-id") as string;
      expect(sessionId).toBeTruthy();
      expect(await closed.next()).toEqual({ type: "opened", sessionId, client: "127.0.0.1" });
      // Never used again: closed after the grace period, which is never longer than sessionIdleMs.
      expect(await closed.next()).toEqual({ type: "closed", sessionId, client: "127.0.0.1", reason: "unused" });
      const late = await listTools(server.url, sessionId);
      await late.body?.cancel();
      expect(late.status).toBe(404);
    });

    it("keeps the session of a connected client, whose event stream stays open, past sessionIdleMs", async () => {
      const events = sessionEvents();
      const server = await serve({ tools: noteTools(), sessionIdleMs: 200, onSessionEvent: events.record });
      const client = await connect(server.url);
      const kept = await events.next();
      expect(kept).toMatchObject({ type: "opened" });
      // A session opened after it and then left idle: once the reaper closes that one, sessionIdleMs has
      // passed for the client's session too, which would have been closed first had it been idle.
      const opened = await initialize(server.url);
      await opened.body?.cancel();
      const idleId = opened.headers.get("mcp-session-id") as string;
      const used = await listTools(server.url, idleId);
      await used.body?.cancel();
      expect(await events.next()).toEqual({ type: "opened", sessionId: idleId, client: "127.0.0.1" });
      expect(await events.next()).toEqual({ type: "closed", sessionId: idleId, client: "127.0.0.1", reason: "idle" });
      expect(events.seen.filter((event) => event.sessionId === kept.sessionId)).toEqual([kept]);
      expect(textOf(await client.callTool({ name: "list_notes", arguments: {} }))).toBe("No notes.");
    });

    it("reaps the sessions of 200 concurrent initialize requests that never come back, so a new client gets in", async () => {
      const events = sessionEvents();
      const server = await serve({ tools: noteTools(), sessionGraceMs: 500, maxSessionsPerClient: 1000, onSessionEvent: events.record });
      const answers = await Promise.all(Array.from({ length: 200 }, () => rawInitialize(server.url)));
      const opened = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status !== 200);
      expect(opened.length).toBeGreaterThan(0);
      for (const answer of refused) {
        expect(answer.status).toBe(503);
        expect(answer.retryAfter).toMatch(/^\d+$/);
        expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000, data: { limit: "maxSessions", max: 100 } } });
        expect(answer.body.error.message).toMatch(/^Service unavailable: 100 sessions are open, the most this server allows \(maxSessions\)/);
      }
      // Never more than the cap at once, and every session nobody used again is closed as unused.
      let live = 0;
      let most = 0;
      for (let closed = 0; closed < opened.length; ) {
        const event = await events.next();
        live += event.type === "opened" ? 1 : -1;
        most = Math.max(most, live);
        if (event.type === "closed") {
          expect(event.reason).toBe("unused");
          closed++;
        }
      }
      expect(most).toBeLessThanOrEqual(100);
      const client = await connect(server.url);
      expect(textOf(await client.callTool({ name: "list_notes", arguments: {} }))).toBe("No notes.");
    });

    it("limits the sessions one client may hold, says which limit and when to retry, and lets other clients in", async () => {
      const server = await serve({ tools: noteTools(), maxSessionsPerClient: 2, sessionGraceMs: 45_000 });
      const first = await rawInitialize(server.url);
      expect((await rawInitialize(server.url)).status).toBe(200);
      const refused = await rawInitialize(server.url);
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe("45");
      expect(refused.body.error).toMatchObject({ code: -32000, data: { limit: "maxSessionsPerClient", max: 2, retryAfterSeconds: 45 } });
      expect(refused.body.error.message).toBe(
        "Service unavailable: 127.0.0.1 has 2 sessions open, the most one client may hold (maxSessionsPerClient). " +
          "End one you no longer use (DELETE with its Mcp-Session-Id) or try again in 45 s.",
      );
      // Another address on this machine is another client.
      expect((await rawInitialize(server.url, { localAddress: "127.0.0.2" })).status).toBe(200);
      // Ending a session gives its place back.
      const ended = await fetch(server.url, { method: "DELETE", headers: { "Mcp-Session-Id": first.sessionId! } });
      expect(ended.status).toBe(200);
      expect((await rawInitialize(server.url)).status).toBe(200);
    });

    it("refuses a request from a web page whose Origin is not allowed, before opening a session", async () => {
      const events = sessionEvents();
      const server = await serve({ tools: noteTools(), allowedOrigins: ["https://app.example.com"], onSessionEvent: events.record });
      const foreign = await rawInitialize(server.url, { origin: "http://evil.example" });
      expect(foreign.status).toBe(403);
      expect(foreign.body).toMatchObject({ jsonrpc: "2.0", error: { code: -32000 } });
      expect(foreign.body.error.message).toBe('Forbidden: requests from the web page "http://evil.example" are refused; list a page\'s origin in allowedOrigins to let it in.');
      expect(events.seen).toEqual([]);
      expect((await rawInitialize(server.url, { origin: "https://APP.example.com:443" })).status).toBe(200);
      // No Origin: not a browser.
      expect((await rawInitialize(server.url)).status).toBe(200);
      await expect(startMcpHttpServer({ tools: noteTools(), allowedOrigins: ["app.example.com"] })).rejects.toThrow(/is not an origin; write it like https:\/\/app\.example\.com/);
    });

    it("refuses a session beyond maxSessions with 503, and opens one again once a session ends", async () => {
      const server = await serve({ tools: noteTools(), maxSessions: 2 });
      const first = await connect(server.url);
      await connect(server.url);
      const refused = await initialize(server.url);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("60");
      expect(JSON.stringify(await refused.json())).toContain("2 sessions are open");
      await (first.transport as StreamableHTTPClientTransport).terminateSession();
      const third = await connect(server.url);
      expect(textOf(await third.callTool({ name: "list_notes", arguments: {} }))).toBe("No notes.");
    });

    it("gives back the slot of a session that failed to open or was never initialized", async () => {
      let calls = 0;
      const server = await serve({
        maxSessions: 1,
        toolsFactory: () => {
          if (++calls === 1) throw new Error("store offline");
          return noteTools();
        },
      });
      const failed = await initialize(server.url);
      expect(failed.status).toBe(500);
      expect(JSON.stringify(await failed.json())).toContain("store offline");
      const notInitialize = await fetch(server.url, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
      await notInitialize.body?.cancel();
      expect(notInitialize.status).toBe(400);
      const client = await connect(server.url);
      expect(textOf(await client.callTool({ name: "list_notes", arguments: {} }))).toBe("No notes.");
    });
  });

  it("answers an unknown session with 404 so the client starts over", async () => {
    const server = await serve({ tools: noteTools() });
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": "nope" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
  });
});
