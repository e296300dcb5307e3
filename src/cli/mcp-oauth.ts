import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { boundedQuote, boundedText } from "../core/bounded-quote.js";
import type { InteractiveOAuthClientProvider } from "../integrations/mcp-tools.js";

/** An authorization link longer than this is not one to follow. */
const LINK_LIMIT = 4_000;

/** What is kept for one server: its registration, tokens and the flow in progress. Never printed. */
type SavedAuth = {
  serverUrl: string;
  /** The loopback port the registration's redirect URI names. */
  redirectPort?: number;
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  codeVerifier?: string;
};

/**
 * The CLI's OAuth client for MCP servers: the registration and tokens live in the Stepwise home, one
 * file per server, readable by the user alone (0600); the user authorizes in the browser (the link
 * is printed, and opened when a terminal is attached), which comes back to a loopback port here.
 * Call `close()` once connected.
 */
export class LoopbackOAuthProvider implements InteractiveOAuthClientProvider {
  #saved: SavedAuth;
  #expectedState: string | undefined;
  #codeWaiter: { resolve(code: string): void; reject(error: Error): void } | undefined;
  #code: Promise<string>;

  private constructor(
    private readonly file: string,
    saved: SavedAuth,
    private readonly listener: Server,
    private readonly port: number,
    private readonly announce: (text: string) => void,
    private readonly openBrowser: boolean,
  ) {
    this.#saved = saved;
    this.#code = new Promise((resolve, reject) => (this.#codeWaiter = { resolve, reject }));
    // Nobody may wait for a code at all: the rejection when it is closed unused is not a failure.
    this.#code.catch(() => undefined);
    listener.on("request", (req, res) => {
      const url = new URL(req.url ?? "/", `http://127.0.0.1:${this.port}`);
      if (url.pathname !== "/callback") return void res.writeHead(404).end();
      const problem = this.#acceptCallback(url.searchParams);
      res.writeHead(problem ? 400 : 200, { "content-type": "text/plain; charset=utf-8" });
      res.end(problem ? `Stepwise could not finish the authorization: ${problem}` : "Stepwise is authorized. You can close this tab.");
    });
  }

  /** Opens the provider for the server at `serverUrl`, listening on its loopback port until `close()`. */
  static async open(home: string, serverUrl: string, opts: { announce: (text: string) => void; openBrowser: boolean }): Promise<LoopbackOAuthProvider> {
    const dir = join(home, "mcp-oauth");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, `${createHash("sha256").update(serverUrl).digest("hex").slice(0, 24)}.json`);
    let saved: SavedAuth = { serverUrl };
    try {
      const read = JSON.parse(readFileSync(file, "utf8")) as SavedAuth;
      if (read.serverUrl === serverUrl) saved = read;
    } catch {
      // Nothing saved yet (or unreadable): start afresh.
    }
    const listener = createServer();
    let port = await listen(listener, saved.redirectPort ?? 0).catch(() => undefined);
    if (port === undefined) {
      // The registered port is taken: register again with a new one.
      saved = { serverUrl };
      port = await listen(listener, 0);
    }
    return new LoopbackOAuthProvider(file, { ...saved, redirectPort: port }, listener, port, opts.announce, opts.openBrowser);
  }

  get redirectUrl(): string {
    return `http://127.0.0.1:${this.port}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Stepwise",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  state(): string {
    this.#expectedState = randomBytes(16).toString("hex");
    return this.#expectedState;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#saved.client;
  }

  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.#save({ ...this.#saved, client });
  }

  tokens(): OAuthTokens | undefined {
    return this.#saved.tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#save({ ...this.#saved, tokens });
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#save({ ...this.#saved, codeVerifier });
  }

  codeVerifier(): string {
    if (!this.#saved.codeVerifier) throw new Error("no authorization is in progress (no PKCE code verifier saved)");
    return this.#saved.codeVerifier;
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    const { client, tokens, codeVerifier, ...kept } = this.#saved;
    if (scope === "all") return this.#save(kept);
    if (scope === "client") return this.#save({ ...kept, ...(tokens ? { tokens } : {}), ...(codeVerifier ? { codeVerifier } : {}) });
    if (scope === "tokens") return this.#save({ ...kept, ...(client ? { client } : {}), ...(codeVerifier ? { codeVerifier } : {}) });
    if (scope === "verifier") return this.#save({ ...kept, ...(client ? { client } : {}), ...(tokens ? { tokens } : {}) });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    // The link is the server's to make: a printed one is bounded (the terminal escapes what it holds).
    this.announce(`MCP server ${new URL(this.#saved.serverUrl).origin} needs your authorization. Open this link to allow Stepwise:\n${boundedText(authorizationUrl.href, LINK_LIMIT)}\n`);
    if (this.openBrowser) openInBrowser(authorizationUrl.href);
  }

  waitForAuthorizationCode(): Promise<string> {
    return this.#code;
  }

  /** Replaces every saved secret in `text` (an error message, say) so it can be shown. */
  redact(text: string): string {
    const secrets = [this.#saved.tokens?.access_token, this.#saved.tokens?.refresh_token, this.#saved.client?.client_secret, this.#saved.codeVerifier];
    return secrets.reduce<string>((out, secret) => (secret ? out.split(secret).join("[redacted]") : out), text);
  }

  async close(): Promise<void> {
    this.#codeWaiter?.reject(new Error("the authorization was not finished"));
    await new Promise<void>((resolve) => {
      this.listener.closeAllConnections();
      this.listener.close(() => resolve());
    });
  }

  /**
   * The browser's return: the code, or the server's refusal, when its state is the one sent; else
   * what was wrong. The state comes first: any page on this machine can load the callback (an
   * `<img>` will do), and without the state it must neither finish nor abort the authorization.
   */
  #acceptCallback(params: URLSearchParams): string | undefined {
    if (this.#expectedState === undefined || params.get("state") !== this.#expectedState) return "the state does not match the authorization Stepwise started";
    const error = params.get("error");
    if (error) {
      // The server's words, quoted and bounded: they end up on the terminal and in this page.
      const description = params.get("error_description");
      const reason = `the server refused: ${boundedQuote(error, 100)}${description ? ` (${boundedQuote(description, 200)})` : ""}`;
      this.#codeWaiter?.reject(new Error(reason));
      return reason;
    }
    const code = params.get("code");
    if (!code) return "no authorization code came back";
    this.#codeWaiter?.resolve(code);
    return undefined;
  }

  /** Written whole under another name, then renamed, so a crash never leaves half a file; readable by the user alone. */
  #save(saved: SavedAuth): void {
    this.#saved = saved;
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify(saved), { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.file);
  }
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Best effort: the link is printed either way. */
function openInBrowser(url: string): void {
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    const child = spawn(opener, [url], { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // No opener here: the user follows the printed link.
  }
}
