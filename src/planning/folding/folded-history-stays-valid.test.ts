import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import { scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { contextFolding } from "./context-folding.js";
import { isValidToolSequence, readFile, workUnits } from "./test-support/work-units.js";

type Step = { reads: number[] };
type UnitPlan = { steps: Step[] };

/** Turns for units whose steps make one to three parallel reads of random size; unit ids count from `first`. */
function turnsFor(units: UnitPlan[], first: number): ScriptedTurn[] {
  return units.flatMap((unit, u) => {
    const id = String(first + u);
    return [
      { toolCalls: [{ name: "start_unit", arguments: { id } }] },
      ...unit.steps.map((step, s) => ({
        toolCalls: step.reads.map((chars, r) => ({ name: "read_file", arguments: { path: `src/u${id}/s${s}r${r}.ts`, chars } })),
      })),
      { toolCalls: [{ name: "finish_unit", arguments: { id, outcome: `unit ${id} done` } }] },
    ];
  });
}

const unitPlan = fc.record({
  steps: fc.array(fc.record({ reads: fc.array(fc.integer({ min: 100, max: 3000 }), { minLength: 1, maxLength: 3 }) }), {
    minLength: 1,
    maxLength: 5,
  }),
});

describe("folded history", () => {
  it("is always a valid tool-call sequence that keeps every user message and ends with the plan", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(unitPlan, { minLength: 1, maxLength: 4 }),
        fc.array(unitPlan, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1500, max: 8000 }),
        async (firstRun, secondRun, budgetTokens) => {
          const model = scriptedModel([...turnsFor(firstRun, 1), "first part done", ...turnsFor(secondRun, firstRun.length + 1), "all done"]);
          const folding = contextFolding({ budgetTokens });
          const agent = new Agent({ model, tools: [readFile], plugins: [workUnits(), folding], maxSteps: 200 });
          const folds: AgentEvent[] = [];
          agent.on((e) => e.type === "context-folded" && folds.push(e));
          await agent.run("Part one.");
          await agent.run("Part two.");
          for (const req of model.requests) {
            expect(isValidToolSequence(req.messages)).toBe(true);
            expect(req.messages.at(-1)?.content).toMatch(/^<plan>|^Part /);
          }
          const users = agent.memory.filter((m) => m.role === "user").map((m) => m.content);
          expect(users).toEqual(["Part one.", "Part two."]);
          expect(isValidToolSequence(agent.memory)).toBe(true);
          expect(folding.stats.prefixBreaks).toBe(folds.length);
        },
      ),
      { numRuns: 40 },
    );
  });
});
