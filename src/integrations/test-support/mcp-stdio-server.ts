// Serves the test MCP server over stdio; the tests spawn this file as a child process with tsx.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createTestMcpServer } from "./mcp-test-server.js";

await createTestMcpServer().connect(new StdioServerTransport());
