import { describeJsonSchema } from "../../core/json-schema.js";
import type { Tool } from "../../core/tool.js";

/** The tools a planner may put in its plan, one line each: name, argument shape, description. */
export function toolCatalog(tools: readonly Tool[]): string {
  if (tools.length === 0) return "(no tools)";
  return tools.map((tool) => `- ${tool.name} ${describeJsonSchema(tool.parameters)}: ${tool.description}`).join("\n");
}
