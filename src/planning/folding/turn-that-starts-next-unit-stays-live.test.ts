import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { contextFolding } from "./context-folding.js";
import { readFile, unitTurns, workUnits } from "./test-support/work-units.js";

describe("a turn that finishes one unit and starts the next", () => {
  it("belongs to the unit it started, so folding the finished unit leaves it in place", async () => {
    const turns: ScriptedTurn[] = [
      ...unitTurns(1, 5).slice(0, -2),
      {
        toolCalls: [
          { name: "finish_unit", arguments: { id: "1", outcome: "one done" }, id: "handover_finish" },
          { name: "start_unit", arguments: { id: "2" }, id: "handover_start" },
        ],
      },
      ...Array.from({ length: 4 }, (_, i) => ({ toolCalls: [{ name: "read_file", arguments: { path: `src/two/f${i}.ts` } }] })),
      "Paused.",
    ];
    const folding = contextFolding({ budgetTokens: 2000 });
    const agent = new Agent({ model: scriptedModel(turns), tools: [readFile], plugins: [workUnits(), folding] });
    await agent.run("Go.");
    expect(folding.stats.unitsFolded).toBe(1);
    const handover = agent.memory.findIndex((m) => m.role === "assistant" && m.toolCalls?.[0]?.id === "handover_finish");
    expect(handover).toBeGreaterThan(0);
    expect(agent.memory[handover - 1]?.content).toContain('<folded-work unit="unit:1">');
    expect(agent.memory.slice(handover + 1, handover + 3).map((m) => m.content)).toEqual(["Unit 1 finished.", "Unit 2 started."]);
  });
});
