import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { InvalidArgumentError } from "commander";
import { z } from "zod";
import type { Tool } from "../core/tool.js";
import { mcpTools, type McpServerSpec, type McpTools } from "../integrations/mcp-tools.js";
import type { RunMcpServers } from "../runs/run-settings.js";
import { CliError } from "./cli-error.js";
import { LoopbackOAuthProvider } from "./mcp-oauth.js";
import { exitCodeOf } from "./run-endings.js";

export const MCP_OPTION_FORMAT = '<name>=<command line or URL>, e.g. files="npx -y @modelcontextprotocol/server-filesystem ." or docs=https://example.com/mcp';

const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** `--mcp name=server`, repeatable: each adds one server; a name may be given once. */
export function collectMcpOption(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const split = value.indexOf("=");
  const name = split > 0 ? value.slice(0, split).trim() : "";
  const server = split > 0 ? value.slice(split + 1).trim() : "";
  if (!SERVER_NAME.test(name) || server === "") throw new InvalidArgumentError(`expected ${MCP_OPTION_FORMAT}; a name is 1-32 letters, digits, "_" or "-".`);
  if (name in previous) throw new InvalidArgumentError(`the MCP server name "${name}" is given twice.`);
  const problem = serverProblem(server);
  if (problem) throw new InvalidArgumentError(`${problem}.`);
  return { ...previous, [name]: server };
}

/** The tools of a run's MCP servers, each prefixed with its server's name and "__" so it never clashes with Stepwise's own. */
export type ConnectedMcpServers = { tools: Tool[]; close(): Promise<void> };

/**
 * The MCP servers a command has connected, by the runs' settings: a run resumed again in the same
 * process (the terminal's next answer, the viewer's next decision) reuses the connection. Close it
 * when the command ends.
 */
export class McpConnections {
  readonly #open = new Map<string, Promise<ConnectedMcpServers>>();

  constructor(private readonly opts: { home: string; announce: (text: string) => void; interactive: boolean }) {}

  /** The tools of these servers, connecting them the first time they are asked for. */
  async toolsFor(mcp: RunMcpServers | undefined): Promise<Tool[]> {
    if (!mcp || (Object.keys(mcp.servers).length === 0 && !mcp.configFile)) return [];
    const key = JSON.stringify([Object.entries(mcp.servers).sort(), mcp.configFile ?? null]);
    let connecting = this.#open.get(key);
    if (!connecting) {
      connecting = connectMcpServers(mcp, this.opts);
      this.#open.set(key, connecting);
      // A failed connection is not kept: the next run that names these servers tries again.
      connecting.catch(() => this.#open.delete(key));
    }
    return (await connecting).tools;
  }

  async close(): Promise<void> {
    const open = [...this.#open.values()];
    this.#open.clear();
    await Promise.allSettled(open.map(async (connecting) => (await connecting).close()));
  }
}

/**
 * Connects every server a run names (`--mcp`, then a config file's, where `--mcp` wins on a name),
 * with OAuth for HTTP servers that ask for it: registration and tokens kept in the Stepwise home.
 */
export async function connectMcpServers(
  mcp: RunMcpServers | undefined,
  opts: { home: string; announce: (text: string) => void; interactive: boolean },
): Promise<ConnectedMcpServers> {
  const specs: Record<string, McpServerSpec> = { ...(mcp?.configFile ? readMcpConfig(mcp.configFile) : {}) };
  for (const [name, server] of Object.entries(mcp?.servers ?? {})) specs[name] = specFromOption(server);
  const connected: McpTools[] = [];
  const close = async () => void (await Promise.allSettled(connected.map((c) => c.close())));
  for (const [name, spec] of Object.entries(specs)) {
    const auth = "url" in spec ? await LoopbackOAuthProvider.open(opts.home, spec.url, { announce: opts.announce, openBrowser: opts.interactive }) : undefined;
    try {
      connected.push(await mcpTools(auth && "url" in spec ? { ...spec, authProvider: auth } : spec, { prefix: `${name}__` }));
    } catch (error) {
      await close();
      const reason = error instanceof Error ? error.message : String(error);
      throw new CliError(`MCP server ${name}: ${auth ? auth.redact(reason) : reason}`.split("\n")[0] ?? "", exitCodeOf("failed"));
    } finally {
      await auth?.close();
    }
  }
  return { tools: connected.flatMap((c) => c.tools()), close };
}

/** A path to a config file, made absolute so that a resume from another folder reads the same file; checked now. */
export function mcpConfigPath(path: string): string {
  const absolute = resolve(path);
  readMcpConfig(absolute);
  return absolute;
}

const ConfigSchema = z.object({
  mcpServers: z.record(
    z.string().regex(SERVER_NAME, 'a server name is 1-32 letters, digits, "_" or "-"'),
    z.union([
      z.object({ command: z.string().min(1), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional() }),
      z.object({ url: z.url({ protocol: /^https?$/ }), headers: z.record(z.string(), z.string()).optional(), type: z.string().optional() }),
    ]),
  ),
});

/** The `{"mcpServers": {name: {command, args?, env?} | {url, headers?}}}` file that editors and agents share. */
export function readMcpConfig(path: string): Record<string, McpServerSpec> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CliError(`--mcp-config ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--mcp-config ${path} is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.map(String).join(".") : "(the file)";
    throw new CliError(`--mcp-config ${path}: ${where}: ${issue?.message ?? "not accepted"}; expected {"mcpServers": {"<name>": {"command": "…", "args": […]} or {"url": "https://…"}}}`);
  }
  const specs: Record<string, McpServerSpec> = {};
  for (const [name, server] of Object.entries(parsed.data.mcpServers)) {
    specs[name] = "url" in server ? { url: server.url, ...(server.headers ? { headers: server.headers } : {}) } : { command: server.command, ...(server.args ? { args: server.args } : {}), ...(server.env ? { env: server.env } : {}) };
  }
  return specs;
}

function specFromOption(server: string): McpServerSpec {
  if (/^https?:\/\//i.test(server)) return { url: server };
  const [command, ...args] = splitCommandLine(server) as [string, ...string[]];
  return { command, args };
}

function serverProblem(server: string): string | undefined {
  if (/^https?:\/\//i.test(server)) return URL.canParse(server) ? undefined : "the MCP server URL is not a valid URL";
  if (!/^[a-z]+:\/\//i.test(server)) {
    try {
      return splitCommandLine(server).length > 0 ? undefined : "the MCP server command line is empty";
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }
  return "an MCP server URL must start with http:// or https://";
}

/** Words as a shell would split them: whitespace between, '…' and "…" quote, \ escapes outside single quotes. */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === "\\" && quote === '"' && i + 1 < line.length) word += line[++i] as string;
      else word += char;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (char === "\\" && i + 1 < line.length) {
      word = (word ?? "") + (line[++i] as string);
    } else word = (word ?? "") + char;
  }
  if (quote) throw new Error(`the MCP server command line has an unclosed ${quote} quote`);
  if (word !== undefined) words.push(word);
  return words;
}
