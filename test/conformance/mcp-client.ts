// The client the MCP conformance suite drives: `tsx mcp-client.ts <server url>`, the scenario in
// MCP_CONFORMANCE_SCENARIO. It is what an agent does with `mcpTools`: connect, list the tools, call
// each one (with the smallest arguments its schema accepts, standing in for a model's), answer the
// server's questions by accepting its defaults, and close.
import { mcpTools } from "../../src/integrations/mcp-tools.js";

const url = process.argv[2];
if (!url) {
  process.stderr.write("usage: mcp-client <server url>\n");
  process.exit(2);
}

const mcp = await mcpTools({ url }, { elicit: async () => ({ action: "accept", content: {} }) });
for (const tool of mcp.tools()) {
  const result = await tool.invoke(exampleArguments(tool.parameters));
  process.stdout.write(`${tool.name}: ${result.isError ? "error" : "ok"} ${result.text.slice(0, 200)}\n`);
}
await mcp.close();

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; required?: string[]; default?: unknown; enum?: unknown[] };

/** A value for each required property: its default or first enum value, else the simplest of its type. */
function exampleArguments(schema: JsonSchema): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) args[name] = exampleValue(schema.properties?.[name] ?? {});
  return args;
}

function exampleValue(schema: JsonSchema): unknown {
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  switch (schema.type) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object":
      return exampleArguments(schema);
    default:
      return "x";
  }
}
