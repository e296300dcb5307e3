import { z } from "zod";
import { Agent } from "../core/agent.js";
import { defineTool } from "../core/tool.js";
import { scriptedModel } from "../models/scripted.js";

/** The offline demo: a scripted agent that calls tools, then answers. */
export async function runDemo(out: NodeJS.WritableStream): Promise<void> {
  const inventory: Record<string, number> = { apples: 12, pears: 3 };
  const countItem = defineTool({
    name: "count_item",
    description: "How many of an item are in stock.",
    parameters: z.object({ item: z.string() }),
    readOnly: true,
    execute: ({ item }) => `${inventory[item] ?? 0} ${item}`,
  });
  const model = scriptedModel([
    {
      content: "I'll check both items.",
      toolCalls: [
        { name: "count_item", arguments: { item: "apples" } },
        { name: "count_item", arguments: { item: "pears" } },
      ],
    },
    (req) => {
      const counts = req.messages.filter((m) => m.role === "tool").map((m) => m.content);
      return `In stock: ${counts.join(" and ")}.`;
    },
  ]);
  const agent = new Agent({ name: "demo", model, tools: [countItem], systemPrompt: "You keep a shop's stock." });
  agent.on((event) => {
    if (event.type === "tool-end") out.write(`  tool ${event.call.name}(${event.call.arguments}) -> ${event.result.text}\n`);
  });
  out.write("task: How many apples and pears do we have?\n");
  const result = await agent.run("How many apples and pears do we have?");
  out.write(`answer: ${result.text}\n`);
}
