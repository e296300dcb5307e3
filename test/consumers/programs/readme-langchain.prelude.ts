// What the README's LangChain.js example takes as the user's own: a chat model (LangChain's fake one
// here, planning then answering) and tools.
import { fakeModel } from "@langchain/core/testing";
import { AIMessage as PreludeAIMessage, tool as preludeTool } from "langchain";
import { z as preludeZ } from "zod";

const model = fakeModel()
  .respond(new PreludeAIMessage({ content: "", tool_calls: [{ name: "write_todos", args: { todos: [{ content: "Outline", status: "in_progress" }] }, id: "w1", type: "tool_call" }] }))
  .respond(new PreludeAIMessage("Here is the report."));
const tools = [preludeTool(({ q }: { q: string }) => `found ${q}`, { name: "lookup", description: "Look up.", schema: preludeZ.object({ q: preludeZ.string() }) })];
