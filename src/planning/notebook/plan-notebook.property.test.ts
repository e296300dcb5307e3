// Random tool-call sequences through the eight tools; the notebook's invariants hold after each call.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { describeRecommendedCall, planGuidance } from "./hints.js";
import { PLAN_STATES, type Plan } from "./plan.js";
import { PlanNotebook } from "./plan-notebook.js";

type Call = { name: string; args: unknown };

// Mostly indices a small plan has, so sequences reach the states where the rules meet.
const index = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 2 }) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 6 }) });
const subtaskArg = fc.record({ name: fc.constantFrom("a", "b", "c"), description: fc.constant("d"), expected_outcome: fc.constant("o") });
const planId = fc.oneof(fc.nat({ max: 5 }).map((n) => ({ known: n })), fc.constant({ known: -1 }));

const call: fc.Arbitrary<Call> = fc.oneof(
  fc.record({ name: fc.constant("create_plan"), args: fc.record({ name: fc.constantFrom("P", "Q"), description: fc.constant("d"), expected_outcome: fc.constant("o"), subtasks: fc.array(subtaskArg, { minLength: 0, maxLength: 6 }) }) }),
  fc.record({ name: fc.constant("update_subtask_state"), args: fc.record({ subtask_idx: index, state: fc.constantFrom("todo", "in_progress", "abandoned", "done") }) }),
  fc.record({ name: fc.constant("update_subtask_state"), args: fc.record({ subtask_idx: index, state: fc.constant("in_progress") }) }),
  fc.record({ name: fc.constant("finish_subtask"), args: fc.record({ subtask_idx: index, subtask_outcome: fc.constant("out") }) }),
  fc.record({ name: fc.constant("revise_current_plan"), args: fc.record({ subtask_idx: index, action: fc.constantFrom("add", "revise", "delete"), subtask: subtaskArg }) }),
  fc.record({ name: fc.constant("finish_plan"), args: fc.record({ state: fc.constantFrom("done", "abandoned"), outcome: fc.constant("end") }) }),
  fc.record({ name: fc.constant("view_subtasks"), args: fc.record({ subtask_idx: fc.array(index, { maxLength: 3 }) }) }),
  fc.record({ name: fc.constant("view_historical_plans"), args: fc.constant({}) }),
  fc.record({ name: fc.constant("recover_historical_plan"), args: planId }),
);

const doneCount = (plan: Plan | null) => plan?.subtasks.filter((s) => s.state === "done").length ?? 0;

describe("plan notebook invariants under random tool calls", () => {
  it("holds after every call", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 40 }), async (calls) => {
        const notebook = new PlanNotebook({ maxSubtasks: 5 });
        const tools = new Map(notebook.tools().map((t) => [t.name, t]));
        const everSeen = new Set<string>();
        for (const { name, args } of calls) {
          // recover picks among the plans seen so far (or an unknown id), so it can succeed.
          const resolved =
            name === "recover_historical_plan" ? { plan_id: [...everSeen][(args as { known: number }).known] ?? "unknown" } : args;
          const before = notebook.saveState();
          const beforePlan = notebook.currentPlan?.clone() ?? null;
          const result = await tools.get(name)!.invoke(resolved);
          const plan = notebook.currentPlan;
          if (plan) everSeen.add(plan.id);

          // A refused call changes nothing.
          if (result.isError) expect(notebook.saveState()).toEqual(before);
          expect(result.text.length).toBeGreaterThan(0);

          if (plan) {
            expect(plan.subtasks.filter((s) => s.state === "in_progress").length).toBeLessThanOrEqual(1);
            expect(["todo", "in_progress"]).toContain(plan.state);
            expect(plan.subtasks.length).toBeGreaterThanOrEqual(1);
            expect(plan.subtasks.length).toBeLessThanOrEqual(5);
            for (const s of plan.subtasks) {
              expect(PLAN_STATES).toContain(s.state);
              expect(s.state === "done").toBe(s.outcome !== null);
            }
          }
          // A subtask becomes done only through finish_subtask, one at a time.
          if (!result.isError && plan && beforePlan?.id === plan.id) {
            const gained = doneCount(plan) - doneCount(beforePlan);
            if (name === "finish_subtask") expect(gained).toBe(1);
            else expect(gained).toBeLessThanOrEqual(0);
          }

          // The hint never leads into a dead end: the call it recommends is one the notebook accepts.
          // It is tried on a copy, with text where the model would write an outcome.
          const { next } = planGuidance(plan);
          if (next && !result.isError) {
            if (!notebook.hint()?.includes(describeRecommendedCall(next))) expect.fail(`the hint does not name ${describeRecommendedCall(next)}`);
            const copy = new PlanNotebook({ maxSubtasks: 5 });
            copy.loadState(structuredClone(notebook.saveState()));
            const written = Object.fromEntries(Object.keys(next.modelWrites).map((key) => [key, "the outcome"]));
            const followed = await copy.tools().find((t) => t.name === next.tool)!.invoke({ ...next.args, ...written });
            if (followed.isError) expect.fail(`after ${name}(${JSON.stringify(resolved)}) the hint's ${next.tool}(${JSON.stringify(next.args)}) was refused: ${followed.text}`);
          }

          // No plan is ever lost: each one seen is current or in history, and history is finished.
          const history = notebook.historicalPlans();
          const held = new Set([...history.map((p) => p.id), ...(plan ? [plan.id] : [])]);
          for (const id of everSeen) expect(held.has(id)).toBe(true);
          for (const archived of history) expect(["done", "abandoned"]).toContain(archived.state);
        }
        // And the whole notebook round-trips through its saved state.
        const copy = new PlanNotebook({ maxSubtasks: 5 });
        copy.loadState(structuredClone(notebook.saveState()));
        expect(copy.saveState()).toEqual(notebook.saveState());
      }),
      { numRuns: 500 },
    );
  });
});
