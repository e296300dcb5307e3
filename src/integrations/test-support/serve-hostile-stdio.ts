// Serves a hostile MCP server over stdio: `tsx serve-hostile-stdio.ts <behaviour>` (see HOSTILE_BEHAVIOURS).
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createHostileMcpServer, HOSTILE_BEHAVIOURS, type HostileBehaviour } from "./hostile-mcp-server.js";

const behaviour = process.argv[2] as HostileBehaviour;
if (!HOSTILE_BEHAVIOURS.includes(behaviour)) throw new Error(`expected one of ${HOSTILE_BEHAVIOURS.join(", ")}`);
await createHostileMcpServer(behaviour).connect(new StdioServerTransport());
