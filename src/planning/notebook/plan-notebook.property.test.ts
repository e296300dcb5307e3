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

const createPlan = (subtasks: fc.Arbitrary<unknown[]>) =>
  fc.record({ name: fc.constant("create_plan"), args: fc.record({ name: fc.constantFrom("P", "Q"), description: fc.constant("d"), expected_outcome: fc.constant("o"), subtasks }) });

// Weighted towards the calls that move subtasks, so that sequences get deep into a plan.
const call: fc.Arbitrary<Call> = fc.oneof(
  { weight: 1, arbitrary: createPlan(fc.array(subtaskArg, { minLength: 0, maxLength: 6 })) },
  { weight: 3, arbitrary: fc.record({ name: fc.constant("update_subtask_state"), args: fc.record({ subtask_idx: index, state: fc.constantFrom("todo", "in_progress", "abandoned", "done") }) }) },
  { weight: 3, arbitrary: fc.record({ name: fc.constant("update_subtask_state"), args: fc.record({ subtask_idx: index, state: fc.constant("in_progress") }) }) },
  { weight: 2, arbitrary: fc.record({ name: fc.constant("update_subtask_state"), args: fc.record({ subtask_idx: index, state: fc.constant("todo") }) }) },
  { weight: 3, arbitrary: fc.record({ name: fc.constant("finish_subtask"), args: fc.record({ subtask_idx: index, subtask_outcome: fc.constant("out") }) }) },
  { weight: 3, arbitrary: fc.record({ name: fc.constant("revise_current_plan"), args: fc.record({ subtask_idx: index, action: fc.constantFrom("add", "revise", "delete"), subtask: subtaskArg }) }) },
  { weight: 1, arbitrary: fc.record({ name: fc.constant("finish_plan"), args: fc.record({ state: fc.constantFrom("done", "abandoned"), outcome: fc.constant("end") }) }) },
  { weight: 1, arbitrary: fc.record({ name: fc.constant("view_subtasks"), args: fc.record({ subtask_idx: fc.array(index, { maxLength: 3 }) }) }) },
  { weight: 1, arbitrary: fc.record({ name: fc.constant("view_historical_plans"), args: fc.constant({}) }) },
  { weight: 2, arbitrary: fc.record({ name: fc.constant("recover_historical_plan"), args: planId }) },
);

// Each sequence starts from a plan of a few subtasks and goes on long enough to reach the states
// where the rules meet (the counts below show it does, every run).
const sequence = fc
  .tuple(createPlan(fc.array(subtaskArg, { minLength: 2, maxLength: 5 })), fc.array(call, { minLength: 15, maxLength: 50 }))
  .map(([first, rest]): Call[] => [first, ...rest]);

const doneCount = (plan: Plan | null) => plan?.subtasks.filter((s) => s.state === "done").length ?? 0;

/** The hint's five cases, and the calls that meet the ordering rule, as they occur before a call. */
const SITUATIONS = [
  "no plan",
  "nothing started",
  "a subtask in progress",
  "some finished, none in progress",
  "every subtask finished",
  "add before the subtask in progress",
  "set back to todo before the subtask in progress",
  "start while another is in progress",
  "start or finish with an open subtask before it",
  "finish the plan as done with open subtasks",
  "recover an archived plan",
] as const;

function situationsOf(plan: Plan | null, { name, args }: Call): string[] {
  const found: string[] = [];
  if (plan === null) return ["no plan"];
  const subtasks = plan.subtasks;
  const busy = subtasks.findIndex((s) => s.state === "in_progress");
  const finished = (s: { state: string }) => s.state === "done" || s.state === "abandoned";
  if (busy >= 0) found.push("a subtask in progress");
  else if (subtasks.every((s) => s.state === "todo")) found.push("nothing started");
  else if (subtasks.every(finished)) found.push("every subtask finished");
  else found.push("some finished, none in progress");
  const { subtask_idx: at, action, state } = args as { subtask_idx?: number; action?: string; state?: string };
  if (typeof at === "number" && at >= 0 && at < subtasks.length) {
    const starts = (name === "update_subtask_state" && state === "in_progress") || name === "finish_subtask";
    if (name === "revise_current_plan" && action === "add" && busy >= 0 && at <= busy) found.push("add before the subtask in progress");
    if (name === "update_subtask_state" && state === "todo" && busy > at) found.push("set back to todo before the subtask in progress");
    if (starts && busy >= 0 && busy !== at) found.push("start while another is in progress");
    if (starts && subtasks.slice(0, at).some((s) => s.state === "todo")) found.push("start or finish with an open subtask before it");
  }
  if (name === "revise_current_plan" && action === "add" && busy >= 0 && at === busy) found.push("add before the subtask in progress");
  if (name === "finish_plan" && state === "done" && !subtasks.every(finished)) found.push("finish the plan as done with open subtasks");
  return found;
}

describe("plan notebook invariants under random tool calls", () => {
  it("holds after every call", async () => {
    const reached = new Map<string, number>(SITUATIONS.map((situation) => [situation, 0]));
    await fc.assert(
      fc.asyncProperty(sequence, async (calls) => {
        const notebook = new PlanNotebook({ maxSubtasks: 5 });
        const tools = new Map(notebook.tools().map((t) => [t.name, t]));
        const everSeen = new Set<string>();
        for (const { name, args } of calls) {
          // recover picks among the plans seen so far (or an unknown id), so it can succeed.
          const resolved =
            name === "recover_historical_plan" ? { plan_id: [...everSeen][(args as { known: number }).known] ?? "unknown" } : args;
          const before = notebook.saveState();
          const beforePlan = notebook.currentPlan?.clone() ?? null;
          for (const situation of situationsOf(beforePlan, { name, args: resolved })) reached.set(situation, (reached.get(situation) ?? 0) + 1);
          const result = await tools.get(name)!.invoke(resolved);
          if (name === "recover_historical_plan" && !result.isError) reached.set("recover an archived plan", (reached.get("recover an archived plan") ?? 0) + 1);
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
          const history = (await notebook.historicalPlans());
          const held = new Set([...history.map((p) => p.id), ...(plan ? [plan.id] : [])]);
          for (const id of everSeen) expect(held.has(id)).toBe(true);
          for (const archived of history) expect(["done", "abandoned"]).toContain(archived.state);
        }
        // And the whole notebook round-trips through its saved state.
        const copy = new PlanNotebook({ maxSubtasks: 5 });
        copy.loadState(structuredClone(notebook.saveState()));
        expect(copy.saveState()).toEqual(notebook.saveState());
      }),
      { numRuns: 200 },
    );
    // Every situation was met, many times over: a property that never reached one would say nothing about it.
    const rare = [...reached].filter(([, count]) => count < 5);
    expect(rare, `situations reached: ${JSON.stringify(Object.fromEntries(reached))}`).toEqual([]);
  });
});
