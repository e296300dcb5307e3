import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** What the authorization server handed out, for the tests to count. */
export type Issued = { registrations: number; authorizations: number; tokens: string[]; bearersSeen: string[] };

/**
 * An MCP server behind OAuth on loopback, with its own minimal authorization server speaking the
 * wire format a client meets: protected-resource and authorization-server metadata, dynamic client
 * registration, an authorize endpoint that approves at once (the "browser" step), and a token
 * endpoint that checks the PKCE verifier. `/mcp` wants a bearer token it issued; its one tool,
 * `whoami`, answers "authorized".
 */
export async function startOAuthMcpServer(): Promise<{ url: string; issued: Issued; stop(): Promise<void> }> {
  const issued: Issued = { registrations: 0, authorizations: 0, tokens: [], bearersSeen: [] };
  const clients = new Map<string, string[]>();
  const codes = new Map<string, { challenge: string; clientId: string; redirectUri: string }>();
  let origin = "";

  const http = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: "server_error", error_description: String(error) });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", origin);
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource")) {
      return json(res, 200, { resource: `${origin}/mcp`, authorization_servers: [origin] });
    }
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return json(res, 200, {
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `${origin}/token`,
        registration_endpoint: `${origin}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    }
    if (url.pathname === "/register" && req.method === "POST") {
      const metadata = JSON.parse(await bodyOf(req)) as { redirect_uris?: string[] };
      const clientId = `client-${randomBytes(6).toString("hex")}`;
      clients.set(clientId, metadata.redirect_uris ?? []);
      issued.registrations++;
      return json(res, 201, { ...metadata, client_id: clientId, client_id_issued_at: Math.floor(Date.now() / 1000) });
    }
    if (url.pathname === "/authorize") {
      const clientId = url.searchParams.get("client_id") ?? "";
      const redirectUri = url.searchParams.get("redirect_uri") ?? "";
      if (!clients.get(clientId)?.includes(redirectUri)) return json(res, 400, { error: "invalid_request" });
      if (url.searchParams.get("code_challenge_method") !== "S256") return json(res, 400, { error: "invalid_request" });
      const code = randomBytes(12).toString("hex");
      codes.set(code, { challenge: url.searchParams.get("code_challenge") ?? "", clientId, redirectUri });
      issued.authorizations++;
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === "/token" && req.method === "POST") {
      const form = new URLSearchParams(await bodyOf(req));
      const grant = codes.get(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (form.get("grant_type") !== "authorization_code" || !grant || grant.challenge !== challenge || grant.clientId !== form.get("client_id")) {
        return json(res, 400, { error: "invalid_grant" });
      }
      codes.delete(form.get("code") ?? "");
      const token = `at-${randomBytes(16).toString("hex")}`;
      issued.tokens.push(token);
      return json(res, 200, { access_token: token, token_type: "Bearer", expires_in: 3600, refresh_token: `rt-${randomBytes(16).toString("hex")}` });
    }
    if (url.pathname === "/mcp") {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!bearer || !issued.tokens.includes(bearer)) {
        res.writeHead(401, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"` }).end();
        return;
      }
      issued.bearersSeen.push(bearer);
      const server = new McpServer({ name: "protected-server", version: "1.0.0" });
      server.registerTool("whoami", { description: "Says whether the caller is authorized." }, async () => ({ content: [{ type: "text", text: "authorized" }] }));
      const transport = new StreamableHTTPServerTransport({}); // no sessionIdGenerator: stateless
      res.on("close", () => void transport.close());
      await server.connect(transport);
      await transport.handleRequest(req, res);
      return;
    }
    res.writeHead(404).end();
  }

  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    issued,
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = "";
  for await (const chunk of req) text += (chunk as Buffer).toString();
  return text;
}
