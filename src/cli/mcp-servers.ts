import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { InvalidArgumentError } from "commander";
import { z } from "zod";
import { boundedQuote } from "../core/bounded-quote.js";
import type { Tool } from "../core/tool.js";
import { REDACTED, redactSecrets, redactUrlCredentials } from "../models/redact.js";
import { mcpTools, type McpServerSpec, type McpTools } from "../integrations/mcp-tools.js";
import type { RunMcpServers } from "../runs/run-settings.js";
import { CliError } from "./cli-error.js";
import { LoopbackOAuthProvider } from "./mcp-oauth.js";
import { McpSigner } from "./mcp-signing.js";
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

export type McpConnectionOptions = {
  home: string;
  announce: (text: string) => void;
  interactive: boolean;
  /** This command's own servers (`--mcp`, `--mcp-config`): a run's server of the same name may use them, whoever set the run. */
  own?: RunMcpServers;
};

/**
 * The MCP servers a command has connected, by the runs' settings: a run resumed again in the same
 * process (the terminal's next answer, the viewer's next decision) reuses the connection. Close it
 * when the command ends.
 *
 * The store holds the servers' command lines, and anyone who can write to it could put theirs there;
 * so a run's servers are started only when this Stepwise home signed them (McpSigner: the CLI signs
 * the servers it is given when it keeps them with a run), or, for a server of the same name, as this
 * command's own configuration has it. Credentials in a server's URL or command line are not kept with
 * the run: this process remembers the ones it was given, and a resume elsewhere gets them again from
 * its own `--mcp` or `--mcp-config`.
 */
export class McpConnections {
  readonly #open = new Map<string, Promise<ConnectedMcpServers>>();
  /** Server lines given in this process, by the form a run keeps of them (credentials redacted). */
  readonly #given = new Map<string, string>();
  readonly #signer: McpSigner;

  constructor(private readonly opts: McpConnectionOptions) {
    this.#signer = new McpSigner(opts.home);
    for (const line of Object.values(opts.own?.servers ?? {})) this.#given.set(withoutCredentials(line), line);
  }

  /** What a run keeps of servers given to this command: each line without its credentials (remembered here to connect), signed. */
  keep(given: RunMcpServers): RunMcpServers {
    const servers: Record<string, string> = {};
    for (const [name, line] of Object.entries(given.servers)) {
      servers[name] = withoutCredentials(line);
      this.#given.set(servers[name], line);
    }
    return this.#signer.sign({ servers, ...(given.configFile !== undefined ? { configFile: given.configFile } : {}) });
  }

  /**
   * The servers a resumed run goes on with (`merged`: the saved ones with those given now on top),
   * signed when what came from the store was signed here or was all given again: an unsigned server
   * from the store is never signed on the way through.
   */
  endorse(merged: RunMcpServers, saved: RunMcpServers | undefined, given: RunMcpServers | undefined): RunMcpServers {
    const { signature: _unchecked, ...servers } = merged;
    const fromStore = saved && !this.#signer.signed(saved) ? saved : undefined;
    const allGivenAgain = !fromStore || (Object.keys(fromStore.servers).every((name) => name in (given?.servers ?? {})) && (!fromStore.configFile || given?.configFile !== undefined));
    return allGivenAgain ? this.#signer.sign(servers) : servers;
  }

  /** The tools of these servers, connecting them the first time they are asked for; refuses servers it cannot trust (see above). */
  async toolsFor(mcp: RunMcpServers | undefined): Promise<Tool[]> {
    if (!mcp || (Object.keys(mcp.servers).length === 0 && !mcp.configFile)) return [];
    const specs = this.#trusted(mcp);
    const key = JSON.stringify(Object.entries(specs).sort(([a], [b]) => (a < b ? -1 : 1)));
    let connecting = this.#open.get(key);
    if (!connecting) {
      connecting = connectMcpServers(specs, this.opts);
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

  /** The servers to start for a run: as it keeps them when this home signed them, else this command's own of the same names. */
  #trusted(mcp: RunMcpServers): Record<string, McpServerSpec> {
    const own = { ...(this.opts.own?.configFile ? readMcpConfig(this.opts.own.configFile) : {}), ...mapValues(this.opts.own?.servers ?? {}, specFromOption) };
    if (this.#signer.signed(mcp)) {
      const specs: Record<string, McpServerSpec> = { ...(mcp.configFile ? readMcpConfig(mcp.configFile) : {}) };
      for (const [name, kept] of Object.entries(mcp.servers)) {
        const line = this.#given.get(kept) ?? (kept.includes(REDACTED) ? undefined : kept);
        const spec = line !== undefined ? specFromOption(line) : own[name];
        if (!spec) throw new CliError(`MCP server ${name}: the run keeps its ${serverKind(kept)} without the credentials in it; give it again with --mcp ${name}=<${serverKind(kept)}> (or --mcp-config)`);
        specs[name] = spec;
      }
      return specs;
    }
    const specs: Record<string, McpServerSpec> = {};
    const refused: string[] = [];
    for (const [name, kept] of Object.entries(mcp.servers)) {
      const spec = own[name];
      if (spec) specs[name] = spec;
      else refused.push(`${name} (${boundedQuote(kept, 100)})`);
    }
    if (mcp.configFile !== undefined) {
      if (mcp.configFile === this.opts.own?.configFile) Object.assign(specs, own);
      else refused.push(`those of the config file ${boundedQuote(mcp.configFile, 200)}`);
    }
    if (refused.length > 0) {
      throw new CliError(
        `the run names MCP servers this Stepwise home did not set (their settings carry no signature of its key), so they are not started: ${refused.join(", ")}; ` +
          "to let it use a server, give this command the server of that name (--mcp <name>=<command line or URL>, or --mcp-config <file>)",
      );
    }
    return specs;
  }
}

/** A server line (command line or URL) as a run keeps it: the credentials in it replaced. */
function withoutCredentials(line: string): string {
  return /^https?:\/\//i.test(line) ? redactUrlCredentials(line) : redactSecrets(line);
}

function serverKind(line: string): string {
  return /^https?:\/\//i.test(line) ? "URL" : "command line";
}

function mapValues<T, U>(record: Record<string, T>, map: (value: T) => U): Record<string, U> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, map(value)]));
}

/**
 * Connects every server of `specs`, with OAuth for HTTP servers that ask for it: registration and
 * tokens kept in the Stepwise home. What a server's tools leave out is announced.
 */
export async function connectMcpServers(
  specs: Record<string, McpServerSpec>,
  opts: { home: string; announce: (text: string) => void; interactive: boolean },
): Promise<ConnectedMcpServers> {
  const connected: McpTools[] = [];
  const close = async () => void (await Promise.allSettled(connected.map((c) => c.close())));
  for (const [name, spec] of Object.entries(specs)) {
    const auth = "url" in spec ? await LoopbackOAuthProvider.open(opts.home, spec.url, { announce: opts.announce, openBrowser: opts.interactive }) : undefined;
    try {
      const server = await mcpTools(auth && "url" in spec ? { ...spec, authProvider: auth } : spec, { prefix: `${name}__` });
      connected.push(server);
      for (const notice of server.notices) opts.announce(`stepwise: ${notice}\n`);
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
