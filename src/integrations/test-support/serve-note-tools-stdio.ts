// Launched by mcp-stdio.test.ts as a child process, the way an editor launches an MCP server.
import { serveMcpStdio } from "../mcp-server.js";
import { noteTools } from "./note-tools.js";

await serveMcpStdio(noteTools());
