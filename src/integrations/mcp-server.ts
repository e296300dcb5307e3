import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult, ServerNotification } from "@modelcontextprotocol/sdk/types.js";
import { z, type ZodType } from "zod";
import type { Tool } from "../core/tool.js";
import { registerPlanningPrompts } from "./mcp-planning-prompts.js";
import { registerPlanningResources } from "./mcp-planning-resources.js";
import { PlanningWatch, sharedPlanningWatch, type McpPlanningSources } from "./mcp-planning-watch.js";

export interface McpServerOptions {
  /** The server name clients see in the handshake (default "stepwise"). */
  name?: string;
  version?: string;
  /**
   * A notebook and a board to offer as resources (plans, the board, each task; subscribable) and
   * prompts (plan a task, continue a plan, work the board). Servers that serve many sessions pass one
   * shared `PlanningWatch`, so the plugins are watched once.
   */
  planning?: McpPlanningSources | PlanningWatch;
}

const DEFAULT_NAME = "stepwise";
const DEFAULT_VERSION = "0.1.0";

/**
 * An MCP server offering `tools`. The tool objects are shared, not copied: every server made from
 * the same tools (one per HTTP session, say) acts on the same task board or plan notebook.
 */
export function createMcpServer(tools: readonly Tool[], opts: McpServerOptions = {}): McpServer {
  const server = new McpServer({ name: opts.name ?? DEFAULT_NAME, version: opts.version ?? DEFAULT_VERSION }, { capabilities: { logging: {} } });
  if (opts.planning) {
    const owned = !(opts.planning instanceof PlanningWatch);
    const watch = opts.planning instanceof PlanningWatch ? opts.planning : new PlanningWatch(opts.planning);
    registerPlanningResources(server, watch);
    registerPlanningPrompts(server, watch.sources);
    if (owned) {
      const previous = server.server.onclose;
      server.server.onclose = () => {
        void watch.close();
        previous?.();
      };
    }
  }
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: inputSchemaOf(tool),
        annotations: { readOnlyHint: tool.readOnly },
      },
      async (args: unknown, extra): Promise<CallToolResult> => {
        const progress = progressReporter(extra);
        await progress(0, `running ${tool.name}`);
        const result = await tool.invoke(args, { signal: extra.signal });
        await progress(1, result.isError ? `${tool.name} failed` : `${tool.name} done`);
        // Clients that asked for logs (logging/setLevel) see each call; the SDK drops those below their level.
        await server
          .sendLoggingMessage({ level: result.isError ? "warning" : "info", logger: "stepwise", data: `${tool.name}: ${result.isError ? "error" : "ok"}` }, extra.sessionId)
          .catch(() => {});
        return { content: [{ type: "text", text: result.text }], isError: result.isError };
      },
    );
  }
  return server;
}

type CallExtra = { _meta?: { progressToken?: string | number | undefined } | undefined; sendNotification: (n: ServerNotification) => Promise<void> };

/** Progress of one call, sent only when the client asked for it with a progress token. */
function progressReporter(extra: CallExtra): (progress: number, message: string) => Promise<void> {
  const token = extra._meta?.progressToken;
  if (token === undefined) return async () => {};
  return (progress, message) =>
    extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress, total: 1, message } }).catch(() => {});
}

/**
 * The SDK validates a call's arguments with the tool's zod schema before the handler runs, with
 * its own refusals: subtasks sent as a JSON string, which `invoke` repairs in-process, would be
 * refused over MCP. So the SDK gets a schema that takes any object and lists the tool's own JSON
 * Schema (the one an in-process model is shown); `invoke` validates, with the same repairs and the
 * same errors naming the wrong argument as an in-process call.
 */
function inputSchemaOf(tool: Tool): ZodType {
  const { $schema: _dialect, ...listed } = tool.parameters as Record<string, unknown>;
  return z.looseObject({}).meta(listed);
}

export interface RunningMcpServer {
  close(): Promise<void>;
}

/** Serves `tools` over this process's stdin and stdout (how editors and agent hosts launch MCP servers). */
export async function serveMcpStdio(tools: readonly Tool[], opts: McpServerOptions = {}): Promise<RunningMcpServer> {
  const planning = await sharedPlanningWatch(opts.planning);
  const server = createMcpServer(tools, { ...opts, ...(planning.watch ? { planning: planning.watch } : {}) });
  await server.connect(new StdioServerTransport());
  return {
    close: async () => {
      await server.close();
      await planning.close();
    },
  };
}
