// Serves the eliciting test server over stdio: the CLI tests start it with `stepwise run --mcp`.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createElicitingMcpServer } from "./eliciting-mcp-server.js";

await createElicitingMcpServer().connect(new StdioServerTransport());
