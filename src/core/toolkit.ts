import type { ToolSpec } from "./model.js";
import type { Tool } from "./tool.js";

/** The tools an agent can call, by name. Two tools with one name are a configuration error. */
export class Toolkit {
  readonly #tools = new Map<string, Tool>();

  constructor(tools: Iterable<Tool>) {
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) {
        throw new Error(`Two tools are named "${tool.name}": tool names must be unique within an agent (for an MCP server's tools, mcpTools takes prefix, include and exclude).`);
      }
      this.#tools.set(tool.name, tool);
    }
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  get names(): string[] {
    return [...this.#tools.keys()];
  }

  get all(): Tool[] {
    return [...this.#tools.values()];
  }

  specs(): ToolSpec[] {
    return this.all.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
  }
}
