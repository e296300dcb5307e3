import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { Message } from "../../core/messages.js";
import type { ModelRequest } from "../../core/model.js";
import { estimateTokens } from "../../core/tokens.js";
import { scriptedModel } from "../../models/scripted.js";
import { contextFolding } from "./context-folding.js";
import { readFile, unitTurns, workUnits } from "./test-support/work-units.js";

const o200k = (text: string) => encode(text).length;

/** A request's size as a provider bills it: the tool specs, then each message with its framing. */
function billedTokens(req: ModelRequest): number {
  const message = (m: Message) => 3 + o200k(m.content) + (m.role === "assistant" ? (m.toolCalls ?? []).reduce((sum, c) => sum + o200k(c.name) + o200k(c.arguments), 0) : 0);
  return o200k(JSON.stringify(req.tools)) + req.messages.reduce((sum, m) => sum + message(m), 0);
}

describe("a folding budget counted with the model's tokenizer", () => {
  it("keeps every request within it, tools and the plan at the tail included, where the four-characters estimate runs short", async () => {
    const budgetTokens = 5_000;
    // Code reads as more tokens than four characters each: the estimate alone lets requests run over.
    const sample = (await readFile.invoke({ path: "src/u1/f0.ts", chars: 1_600 })).text;
    expect(o200k(sample)).toBeGreaterThan(estimateTokens(sample) * 1.1);

    const model = scriptedModel(unitTurns(8, 6, 1_600));
    const folding = contextFolding({ budgetTokens, countTokens: o200k });
    const agent = new Agent({ model, tools: [readFile], plugins: [workUnits(), folding], maxSteps: 500, systemPrompt: "You work through units." });
    await agent.run("Build the thing.");
    expect(folding.stats.prefixBreaks).toBeGreaterThan(0);
    const sizes = model.requests.map(billedTokens);
    expect(Math.max(...sizes)).toBeGreaterThan(budgetTokens * 0.8);
    expect(sizes.filter((size) => size > budgetTokens)).toEqual([]);
  });
});
