import { startMcpHttpServer } from "../integrations/mcp-http-server.js";
import { serveMcpStdio } from "../integrations/mcp-server.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { TaskBoard } from "../planning/tasks/task-board.js";
import { openSqliteDatabase } from "../stores/sqlite-database.js";
import { SqlitePlanStorage } from "../stores/sqlite-plan-storage.js";
import { CliError } from "./cli-error.js";
import { exitCodeOf } from "./run-endings.js";
import { checkTaskStore, taskStoreFor } from "./task-store-option.js";

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
  const db = openSqliteDatabase(opts.database);
  const store = taskStoreFor(opts.store, db, opts.board);
  await checkTaskStore(store, opts.store);
  const board = new TaskBoard({ store });
  const notebook = new PlanNotebook({ storage: new SqlitePlanStorage(db, { scope: `mcp:${opts.board}` }) });
  const tools = [...board.tools(), ...notebook.tools()];
  const shutdown = async () => {
    await store.close();
    db.close();
  };
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
    throw new CliError(error instanceof Error ? error.message : String(error), exitCodeOf("failed"));
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
