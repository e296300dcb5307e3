// What the README's OpenAI Agents SDK example takes as the user's own: a model (written to the SDK's
// Model interface here, planning then answering) and tools.
import { Usage as PreludeUsage, type Model as PreludeModel, type Tool as PreludeTool } from "@openai/agents";

let preludeTurn = 0;
const model: PreludeModel = {
  async getResponse() {
    const output =
      preludeTurn++ === 0
        ? [{ type: "function_call" as const, callId: "w1", name: "write_todos", arguments: JSON.stringify({ todos: [{ content: "Move a.json", status: "in_progress" }] }), status: "completed" as const }]
        : [{ type: "message" as const, role: "assistant" as const, status: "completed" as const, content: [{ type: "output_text" as const, text: "Migrated." }] }];
    return { usage: new PreludeUsage(), output };
  },
  async *getStreamedResponse() {
    throw new Error("not used");
  },
};
const tools: PreludeTool[] = [];
