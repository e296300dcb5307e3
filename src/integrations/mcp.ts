// stepwise/mcp: serve Stepwise's planning tools over MCP, and use MCP servers' tools in an agent.
export { createMcpServer, serveMcpStdio } from "./mcp-server.js";
export type { McpServerOptions, RunningMcpServer } from "./mcp-server.js";
export { startMcpHttpServer } from "./mcp-http-server.js";
export type { McpHttpServer, McpHttpServerOptions, McpSessionCloseReason, McpSessionEvent, McpSessionInfo } from "./mcp-http-server.js";
export { mcpTools } from "./mcp-tools.js";
export type { McpTools, McpServerSpec, McpStdioServerSpec, McpHttpServerSpec, McpToolsOptions, McpElicitation, McpElicitationAnswer, McpElicitationAnswerer, InteractiveOAuthClientProvider } from "./mcp-tools.js";
