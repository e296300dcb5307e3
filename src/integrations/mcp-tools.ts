import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ElicitRequestSchema, ErrorCode, McpError, type CallToolResult, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { z, type ZodType } from "zod";
import { createHash } from "node:crypto";
import { linkSignals } from "../core/abort.js";
import { redactUrlCredentials } from "../models/redact.js";
import { boundedQuote, boundedText } from "../core/bounded-quote.js";
import { PluginHosts, type Plugin } from "../core/plugin.js";
import { defineTool, type Tool, type ToolContext, type ToolResult } from "../core/tool.js";
import { answersOnResume, elicitationPause } from "./mcp-elicitation-pause.js";
import { ElicitationRouting, type CallInFlight, type McpElicitationAnswerer } from "./mcp-elicitation-routing.js";

declare module "../core/events.js" {
  interface AgentEventMap {
    /** Not every tool of an MCP server is offered to the model (it has too many, its listing did not end): `notice` says what was left out. */
    "mcp-tools-limited": { server: string; notice: string };
  }
}

export type { McpElicitation, McpElicitationAnswer } from "./mcp-elicitation.js";
export type { McpElicitationAnswerer } from "./mcp-elicitation-routing.js";

/** An MCP server started as a child process and spoken to over its stdin/stdout. */
export type McpStdioServerSpec = { command: string; args?: string[]; env?: Record<string, string> };
/**
 * An MCP server reached over Streamable HTTP. `authProvider` is the SDK's OAuth client provider: the
 * transport uses and refreshes its tokens, and starts its authorization flow when the server asks
 * (completed here when the provider is an InteractiveOAuthClientProvider).
 */
export type McpHttpServerSpec = { url: string; headers?: Record<string, string>; authProvider?: OAuthClientProvider };
export type McpServerSpec = McpStdioServerSpec | McpHttpServerSpec;

/**
 * An OAuth client provider that can also wait for the user to come back from the authorization
 * page: `mcpTools` then completes a first authorization itself, with the code it resolves to.
 */
export interface InteractiveOAuthClientProvider extends OAuthClientProvider {
  waitForAuthorizationCode(): Promise<string>;
}

/**
 * A live connection to one MCP server, offering its tools as ordinary Stepwise tools. It is also a
 * plugin: give it to an Agent's `plugins` (or spread `tools()` into `tools`), and call `close()`
 * when the agent is done with it.
 */
export interface McpTools extends Plugin {
  /** "mcp:" and the name the server reports. */
  readonly name: string;
  tools(): Tool[];
  /**
   * What was left out of the server's tools, in words: more than `maxTools`, or a listing that went on
   * past its bounds. Empty when every tool is offered. An agent given this plugin also hears each as an
   * `mcp-tools-limited` event at the start of its runs.
   */
  readonly notices: readonly string[];
  /** Ends the connection (and a stdio server's process). Safe to call more than once. */
  close(): Promise<void>;
}

export interface McpToolsOptions {
  /** Put before every tool name (after it is made model-safe), so two servers' tools never clash: "gh_". */
  prefix?: string;
  /** Only these of the server's tools, by the server's own names; "*" matches any run of characters. */
  include?: readonly string[];
  /** None of these, by the server's own names ("*" as in include); applied after include. */
  exclude?: readonly string[];
  /**
   * How the server's questions to the user (elicitation) are answered. By default the call pauses
   * (ToolPause) with the question pending (an `ask_user` question, id `<call id>-q<n>`), and the user's
   * answer (or rejection, which declines) makes the call again, where the same question — same
   * message and form — gets it; called outside an agent, the question is dismissed ("cancel"). A function
   * answers in this process instead, without pausing. `false` offers no elicitation at all. Fields an
   * answer leaves out get the defaults the server's form gives.
   */
  elicit?: McpElicitationAnswerer | false;
  /**
   * The most tools offered to the model (default 100): every tool costs its description and schema in
   * every request, and some providers refuse more than 128. The first ones listed are kept, and
   * `notices` says how many were left out; `include` chooses others.
   */
  maxTools?: number;
  /** The most characters of one call's result passed to the model (default 40,000); a longer one is cut, saying how much was left out. */
  maxResultChars?: number;
  /** How long listing the server's tools may take in all (ms, default 60,000): a server that answers page after page forever is stopped. */
  listTimeoutMs?: number;
}

const CLIENT_INFO = { name: "stepwise", version: "0.1.0" };
const MODEL_TOOL_NAME = /[^A-Za-z0-9_-]/g;
/** Providers accept tool names of at most 64 characters. */
const MODEL_TOOL_NAME_LIMIT = 64;
const LABEL_LIMIT = 100;

const DEFAULT_MAX_TOOLS = 100;
const DEFAULT_MAX_RESULT_CHARS = 40_000;
const DEFAULT_LIST_TIMEOUT_MS = 60_000;
/** A tool list is paged: past this many pages, or this much JSON, the server is not asked for more. */
const MAX_LIST_PAGES = 100;
const MAX_LIST_CHARS = 4_000_000;

/**
 * Connects to an MCP server, lists its tools and wraps each as a Stepwise tool: the server's input
 * schema is what the model sees and what arguments are checked against, `readOnlyHint` becomes
 * `readOnly`, and results and errors come back as tool results. Rejects when the server cannot be
 * reached at all; once connected, a server that goes away only turns calls into error results.
 */
export async function mcpTools(server: McpServerSpec, opts: McpToolsOptions = {}): Promise<McpTools> {
  const elicit = opts.elicit;
  // Named as the server names itself once connected.
  // What the server calls itself is its own to choose: quoted and bounded wherever it is shown.
  let label = boundedQuote(describeSpec(server), LABEL_LIMIT);
  const questions = new ElicitationRouting(() => label, elicit || undefined);
  const connection = { lost: undefined as string | undefined, lastError: undefined as string | undefined };
  let client: Client | undefined;
  const newClient = (): Client => {
    // The SDK fills omitted fields from the requested schema's defaults before answering (SEP-1034).
    const made = new Client(CLIENT_INFO, elicit === false ? {} : { capabilities: { elicitation: { form: { applyDefaults: true } } } });
    if (elicit !== false) {
      made.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
        const params = request.params as { message: string; requestedSchema?: Record<string, unknown> };
        return questions.answer({ message: params.message, requestedSchema: params.requestedSchema ?? {} }, extra.signal);
      });
    }
    // Only the client in use speaks for the connection: one dropped for a new authorization does not.
    made.onerror = (error) => {
      if (made === client) connection.lastError = error.message;
    };
    made.onclose = () => {
      if (made === client) connection.lost ??= connection.lastError ?? ("url" in server ? "the connection closed" : "its process has ended");
    };
    return (client = made);
  };

  let connected: Client;
  let transport: McpTransport;
  let listing: ToolListing;
  try {
    ({ client: connected, transport } = await connectClient(newClient, server));
    listing = await listTools(connected, opts);
  } catch (error) {
    await client?.close().catch(() => {});
    throw new Error(`Could not connect to MCP server ${describeSpec(server)}: ${withoutCredentials(reasonOf(error), server)}`, { cause: error });
  }
  label = boundedQuote(connected.getServerVersion()?.name ?? describeSpec(server), LABEL_LIMIT);
  const names = modelToolNames(listing.chosen.map((tool) => tool.name), opts.prefix ?? "");
  const shared = { client: connected, questions, label, connection, maxResultChars: opts.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS };
  const tools = listing.chosen.map((tool, i) => wrapTool(shared, tool, names[i] as string));
  const notices = listing.leftOut.map((reason) => `MCP server ${label}: ${reason}`);
  const hosts = new PluginHosts();
  const announced = new Set<string>();
  let closing: Promise<void> | undefined;
  return {
    // An MCP server's tools act on the world: permission policies judge them as read-only or write tools.
    planningTools: false,
    name: `mcp:${connected.getServerVersion()?.name ?? describeSpec(server)}`,
    tools: () => [...tools],
    notices,
    attach: (host) => hosts.add(host),
    beforeModel(ctx) {
      // Once per run of each agent: what its model is not offered.
      const run = `${ctx.agentName}\n${ctx.runId ?? ""}`;
      if (notices.length === 0 || announced.has(run)) return;
      announced.add(run);
      for (const notice of notices) hosts.emitTo(ctx.agentName, { type: "mcp-tools-limited", server: label, notice });
    },
    close() {
      connection.lost ??= "the connection was closed";
      closing ??= closeConnection(connected, transport);
      return closing;
    },
  };
}

/**
 * Connects a new client. When the server wants OAuth and the provider can wait for the user's
 * authorization (`waitForAuthorizationCode`), finishes the flow with the code and connects once more.
 */
async function connectClient(newClient: () => Client, server: McpServerSpec): Promise<{ client: Client; transport: McpTransport }> {
  const first = openTransport(server);
  try {
    const client = newClient();
    await client.connect(first);
    return { client, transport: first };
  } catch (error) {
    const provider = "url" in server ? server.authProvider : undefined;
    if (!(error instanceof UnauthorizedError) || !(first instanceof StreamableHTTPClientTransport) || !isInteractive(provider)) throw error;
    await first.finishAuth(await provider.waitForAuthorizationCode());
    const second = openTransport(server);
    const client = newClient();
    await client.connect(second);
    return { client, transport: second };
  }
}

function isInteractive(provider: OAuthClientProvider | undefined): provider is InteractiveOAuthClientProvider {
  return typeof (provider as Partial<InteractiveOAuthClientProvider> | undefined)?.waitForAuthorizationCode === "function";
}

type McpTransport = StdioClientTransport | StreamableHTTPClientTransport;

function openTransport(server: McpServerSpec): McpTransport {
  if ("url" in server) {
    const { url, headers } = basicAuthorization(server.url, server.headers);
    return new StreamableHTTPClientTransport(url, {
      ...(headers ? { requestInit: { headers } } : {}),
      ...(server.authProvider ? { authProvider: server.authProvider } : {}),
    });
  }
  // The SDK adds a safe default environment (PATH, HOME, …) under whatever `env` we pass.
  return new StdioClientTransport({ command: server.command, args: server.args ?? [], ...(server.env ? { env: server.env } : {}) });
}

/** The tools chosen to offer, and what was left out, in words. */
type ToolListing = { chosen: McpTool[]; leftOut: string[] };

/**
 * Lists the server's tools page by page, within bounds: the chosen ones (include/exclude) up to
 * `maxTools`, at most MAX_LIST_PAGES pages and MAX_LIST_CHARS of listing, within the time allowed. A
 * server past a bound is not asked for more; what it listed so far is kept and the bound named. Only a
 * listing that fails (or times out) before any tool came is an error.
 */
async function listTools(client: Client, opts: McpToolsOptions): Promise<ToolListing> {
  const maxTools = opts.maxTools ?? DEFAULT_MAX_TOOLS;
  const deadline = Date.now() + (opts.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS);
  const chosen: McpTool[] = [];
  let listed = 0;
  let pages = 0;
  let size = 0;
  let cursor: string | undefined;
  let stopped: string | undefined;
  do {
    let page: Awaited<ReturnType<Client["listTools"]>>;
    try {
      page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout: Math.max(1, deadline - Date.now()) });
    } catch (error) {
      if (!(error instanceof McpError && error.code === ErrorCode.RequestTimeout) || listed === 0) throw error;
      stopped = `its tool list did not end within ${opts.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS} ms, so only the ${listed} tools listed by then were considered`;
      break;
    }
    pages++;
    listed += page.tools.length;
    size += JSON.stringify(page.tools).length;
    chosen.push(...page.tools.filter((tool) => isChosen(tool.name, opts)));
    cursor = page.nextCursor;
    if (cursor === undefined || chosen.length > maxTools) break;
    if (pages >= MAX_LIST_PAGES) stopped = `its tool list went on past ${MAX_LIST_PAGES} pages, so only the ${listed} tools on them were considered`;
    else if (size >= MAX_LIST_CHARS) stopped = `its tool list went on past ${MAX_LIST_CHARS.toLocaleString("en-US")} characters, so only the ${listed} tools in them were considered`;
    else if (Date.now() >= deadline) stopped = `its tool list did not end within ${opts.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS} ms, so only the ${listed} tools listed by then were considered`;
  } while (!stopped);
  const leftOut = stopped ? [stopped] : [];
  if (chosen.length > maxTools) {
    const more = cursor === undefined ? `${chosen.length - maxTools} more were left out` : "the rest were left out (the server has more)";
    leftOut.push(`only its first ${maxTools} tools are offered to the model and ${more}; raise maxTools or choose with include`);
  }
  return { chosen: chosen.slice(0, maxTools), leftOut };
}

/**
 * The names the model calls the tools by: prefixed, made model-safe and cut to 64 characters. Names
 * that come out the same (`a.b` and `a_b`, two long ones that differ only past the cut) each end in
 * a hash of the server's own name instead, so every tool keeps a name of its own, the same every time.
 */
function modelToolNames(serverNames: readonly string[], prefix: string): string[] {
  const plain = serverNames.map((name) => `${prefix}${name}`.replace(MODEL_TOOL_NAME, "_").slice(0, MODEL_TOOL_NAME_LIMIT) || "tool");
  const count = new Map<string, number>();
  for (const name of plain) count.set(name, (count.get(name) ?? 0) + 1);
  return plain.map((name, i) => {
    if (count.get(name) === 1) return name;
    const hash = createHash("sha256").update(serverNames[i] as string).digest("hex").slice(0, 8);
    return `${name.slice(0, MODEL_TOOL_NAME_LIMIT - hash.length - 1)}_${hash}`;
  });
}

type ConnectionState = { lost: string | undefined; lastError: string | undefined };

/** Whether the options keep a tool, by the server's own name. */
function isChosen(name: string, opts: McpToolsOptions): boolean {
  const matches = (patterns: readonly string[]) => patterns.some((pattern) => namePattern(pattern).test(name));
  if (opts.include && !matches(opts.include)) return false;
  return !(opts.exclude && matches(opts.exclude));
}

function namePattern(pattern: string): RegExp {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`);
}

/** What every tool of one connection shares. */
type Connection = { client: Client; questions: ElicitationRouting; label: string; connection: ConnectionState; maxResultChars: number };

function wrapTool({ client, questions, label, connection, maxResultChars }: Connection, tool: McpTool, name: string): Tool {
  const { $schema: _dialect, ...parameters } = tool.inputSchema;
  const wrapped = defineTool({
    // Models accept only letters, digits, "_" and "-" in tool names; MCP also allows "." and more.
    name,
    description: tool.description ?? tool.title ?? tool.annotations?.title ?? "",
    parameters: argumentSchema(parameters),
    readOnly: tool.annotations?.readOnlyHint === true,
    async execute(args, ctx: ToolContext): Promise<ToolResult> {
      if (connection.lost !== undefined) return unreachable(label, connection.lost);
      const answers = answersOnResume(ctx.resumed);
      // Only a caller that knows the call by id can go on with it after a pause.
      const call: CallInFlight = { answers: [...answers], canPause: ctx.toolCallId !== undefined, end: new AbortController() };
      let outcome: ToolResult;
      try {
        const signal = linkSignals(ctx.signal, call.end.signal);
        const request = { name: tool.name, arguments: args as Record<string, unknown> };
        const result = await questions.during(call, () => client.callTool(request, undefined, signal ? { signal } : {}));
        // What a server answers is hostile input too: an 8 MB result must not go to the model whole.
        outcome = call.ended ?? { text: boundedText(resultText(result as CallToolResult), maxResultChars), isError: result.isError === true };
      } catch (error) {
        outcome = call.ended ?? callFailure(error, tool.name, label, connection);
      }
      // The server asked what nobody answered yet: the call stopped, and goes on with the user's reply.
      if (call.asks && ctx.toolCallId !== undefined) throw elicitationPause(ctx.toolCallId, answers, call.asks);
      return outcome;
    },
  });
  // The model sees the server's own schema, not our zod rendering of it.
  return { ...wrapped, parameters };
}

/** The server's JSON Schema as zod, so bad arguments are answered before the call leaves; any schema we cannot convert is left to the server to check. */
function argumentSchema(jsonSchema: Record<string, unknown>): ZodType {
  try {
    return z.fromJSONSchema(jsonSchema as z.core.JSONSchema.JSONSchema);
  } catch {
    return z.looseObject({});
  }
}

function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((part) => {
    switch (part.type) {
      case "text":
        return part.text;
      case "resource":
        return "text" in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
      case "resource_link":
        return `[resource link ${part.uri}]`;
      default:
        return `[${part.type} content (${part.mimeType}) omitted]`;
    }
  });
  if (parts.length > 0) return parts.join("\n");
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  return result.isError ? "The tool reported an error without details." : "The tool returned no output.";
}

function callFailure(error: unknown, toolName: string, label: string, connection: ConnectionState): ToolResult {
  if (connection.lost !== undefined) return unreachable(label, connection.lost);
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) return unreachable(label, reasonOf(error));
    if (error.code === ErrorCode.RequestTimeout) {
      return { text: `MCP server ${label} did not answer the call to "${toolName}" in time (${reasonOf(error)}). Try again later or go on without it.`, isError: true };
    }
    return { text: `MCP tool "${toolName}" failed: ${reasonOf(error)}`, isError: true };
  }
  // Anything that is not a protocol answer (a refused HTTP connection, a dead pipe) means the server is gone.
  return unreachable(label, reasonOf(error));
}

function unreachable(label: string, reason: string): ToolResult {
  return { text: `MCP server ${label} is not reachable: ${reason}. Its tools cannot be used now; go on without them or tell the user.`, isError: true };
}

async function closeConnection(client: Client, transport: McpTransport): Promise<void> {
  // Politely end an HTTP session first (a no-op for stateless servers); a server already gone is fine.
  if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => {});
  await client.close().catch(() => {});
}

function describeSpec(server: McpServerSpec): string {
  if ("url" in server) {
    // Never echo credentials that may sit in the URL's user part or query.
    return URL.canParse(server.url) ? `${new URL(server.url).origin}${new URL(server.url).pathname}` : "(invalid URL)";
  }
  return [server.command, ...(server.args ?? [])].join(" ");
}

/**
 * A URL's `user:password@` as HTTP Basic authorization (fetch refuses URLs that carry credentials),
 * unless the headers authorize already; the URL without them.
 */
function basicAuthorization(address: string, headers: Record<string, string> | undefined): { url: URL; headers: Record<string, string> | undefined } {
  const url = new URL(address);
  if (!url.username && !url.password) return { url, headers };
  const credentials = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString("base64");
  url.username = "";
  url.password = "";
  const authorized = Object.keys(headers ?? {}).some((name) => name.toLowerCase() === "authorization");
  return { url, headers: authorized ? headers : { ...headers, Authorization: `Basic ${credentials}` } };
}

/** `text` without the credentials of the server's URL, wherever the URL appears in it whole. */
function withoutCredentials(text: string, server: McpServerSpec): string {
  if (!("url" in server)) return text;
  const forms = [server.url, ...(URL.canParse(server.url) ? [new URL(server.url).href] : [])];
  return forms.reduce((out, form) => out.split(form).join(redactUrlCredentials(form)), text);
}

function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch hides the useful part ("ECONNREFUSED …") in its cause.
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
