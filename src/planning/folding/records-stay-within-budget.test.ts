import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import type { Message } from "../../core/messages.js";
import { estimateMessageTokens } from "../../core/tokens.js";
import { scriptedModel } from "../../models/scripted.js";
import { contextFolding } from "./context-folding.js";
import { isValidToolSequence, readFile, unitTurns, workUnits } from "./test-support/work-units.js";

// Many short units: each leaves a folded record behind, so a long enough run is mostly records.
async function longRun(units: number) {
  const budgetTokens = 3000;
  const turns = unitTurns(units, 4, 900);
  const recallAt = turns.length - 1;
  turns.splice(recallAt, 0, { toolCalls: [{ name: "recall", arguments: { unit: "unit:1" } }] });
  const model = scriptedModel(turns);
  const folding = contextFolding({ budgetTokens });
  const agent = new Agent({ model, tools: [readFile], plugins: [workUnits({ recite: false }), folding], maxSteps: 1000 });
  const events: AgentEvent[] = [];
  agent.on((event) => events.push(event));
  await agent.run("Work through every unit.");
  return { budgetTokens, model, agent, folding, events };
}

describe("folded records over a long run", () => {
  it("keep requests within the budget: older records merge into one digest of a line per unit", async () => {
    const { budgetTokens, model, agent } = await longRun(80);
    for (const req of model.requests) expect(estimateMessageTokens(req.messages)).toBeLessThanOrEqual(budgetTokens + 400);
    const digests = agent.memory.filter((m) => m.role === "assistant" && m.content.startsWith("<folded-work units="));
    expect(digests).toHaveLength(1);
    const digest = digests[0]?.content ?? "";
    expect(digest).toContain('- unit:1 "Unit 1": unit 1 works');
    expect(digest).toContain("call recall");
    // The newest records keep their detail beside the digest.
    expect(agent.memory.filter((m) => m.role === "assistant" && m.content.startsWith('<folded-work unit="')).length).toBeGreaterThan(0);
    expect(isValidToolSequence(agent.memory)).toBe(true);
  });

  it("a unit in the digest is recalled exactly", async () => {
    const { agent, events } = await longRun(80);
    const unfolded = new Agent({ model: scriptedModel(unitTurns(1, 4, 900)), tools: [readFile], plugins: [workUnits({ recite: false })] });
    await unfolded.run("Work through every unit.");
    const originals: Message[] = unfolded.memory.slice(1, -1);
    const recalled = events.find((e) => e.type === "tool-end" && e.call.name === "recall");
    expect(recalled?.type === "tool-end" && recalled.result.isError).toBe(false);
    const text = recalled?.type === "tool-end" ? recalled.result.text : "";
    expect((JSON.parse(text) as { messages: Message[] }).messages).toEqual(originals);
    expect(agent.memory.find((m) => m.content.startsWith("<folded-work units="))?.content).toContain("unit:1");
  });
});
