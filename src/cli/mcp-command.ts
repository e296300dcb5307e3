import { HostNeedsTokenError } from "../integrations/http-access.js";
import { startMcpHttpServer } from "../integrations/mcp-http-server.js";
import { serveMcpStdio } from "../integrations/mcp-server.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { TaskBoard } from "../planning/tasks/task-board.js";
import { checkTaskStore } from "../runs/store-set.js";
import { CliError } from "./cli-error.js";
import { exitCodeOf } from "./run-endings.js";
import { openCliStores } from "./run-command.js";

export type McpCommandOptions = {
  database: string;
  http: boolean;
  host: string;
  port: number;
  token?: string;
  store?: string;
  board: string;
};

/**
 * `stepwise mcp`: the task board and plan notebook tools for any MCP client. Every client of one
 * server shares one board (and one notebook); with --store postgres://… so do several servers.
 * Returns `stop`, which may be called more than once.
 */
export async function mcpCommand(opts: McpCommandOptions, log: NodeJS.WritableStream): Promise<() => Promise<void>> {
  const stores = await openCliStores(opts);
  const store = stores.board(opts.board);
  const shutdown = async () => {
    await store.close();
    await stores.close();
  };
  await checkTaskStore(store, stores.location).catch(async (error: unknown) => {
    await stores.close();
    throw new CliError(error instanceof Error ? error.message : String(error), exitCodeOf("failed"));
  });
  const board = new TaskBoard({ store });
  const notebook = new PlanNotebook({ storage: await stores.plans(`mcp:${opts.board}`) });
  const tools = [...board.tools(), ...notebook.tools()];
  if (!opts.http) {
    const server = await serveMcpStdio(tools, { planning: { notebook, board } });
    return once(async () => {
      await server.close();
      await shutdown();
    });
  }
  const token = opts.token ?? process.env["STEPWISE_MCP_TOKEN"];
  let server;
  try {
    server = await startMcpHttpServer({ tools, planning: { notebook, board }, host: opts.host, port: opts.port, ...(token ? { token } : {}) });
  } catch (error) {
    await shutdown();
    throw new CliError(error instanceof Error ? error.message : String(error), error instanceof HostNeedsTokenError ? exitCodeOf("usage") : exitCodeOf("failed"));
  }
  log.write(`MCP server on ${server.url} (board ${opts.board}${token ? ", bearer token required" : ""})\n`);
  return once(async () => {
    await server.close();
    await shutdown();
  });
}

/** Stop may be asked for twice (Ctrl-C, then stdin ending); the store closes once, and both callers wait for it. */
function once(stop: () => Promise<void>): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return () => (stopping ??= stop());
}
