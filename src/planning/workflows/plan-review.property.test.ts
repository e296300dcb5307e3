import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApprovalDecision } from "../../core/approval.js";
import type { ModelRequest } from "../../core/model.js";
import { reactiveModel } from "../../models/scripted.js";
import { PlanAndExecute } from "./plan-and-execute/plan-and-execute.js";
import type { WorkflowOutcome, WorkflowState } from "./workflow.js";

const decisionArb: fc.Arbitrary<ApprovalDecision> = fc.oneof(
  fc.constant<ApprovalDecision>({ action: "approve" }),
  fc.constantFrom("too long", "wrong order").map((reason): ApprovalDecision => ({ action: "reject", reason })),
  fc.array(fc.constantFrom("look", "count", "write"), { minLength: 1, maxLength: 3 }).map((steps): ApprovalDecision => ({ action: "edit", arguments: { steps } })),
);

// Every planner call proposes a plan numbered by how many were asked for; executors echo their step.
function models() {
  let proposals = 0;
  const executed: string[] = [];
  const model = reactiveModel((req: ModelRequest) => {
    const last = String(req.messages.at(-1)?.content);
    const step = /Current step: (.*)/.exec(last)?.[1];
    if (step !== undefined) {
      executed.push(step);
      return `did ${step}`;
    }
    proposals++;
    return JSON.stringify({ steps: [`step ${proposals}a`, `step ${proposals}b`] });
  });
  return { model, executed };
}

describe("plan approval, as a state machine driven through saved states", () => {
  it("nothing runs before a plan is approved or edited; what runs is that plan; two rejections in a row stop the run", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(decisionArb, { minLength: 1, maxLength: 6 }), async (decisions) => {
        const { model, executed } = models();
        const workflow = () => new PlanAndExecute({ model, replan: false, approvePlans: true });
        let outcome: WorkflowOutcome = await workflow().run("task");
        let rejectionsInARow = 0;
        for (const decision of decisions) {
          if (outcome.stopReason !== "awaiting-user") break;
          expect(executed).toEqual([]);
          const proposed = (JSON.parse(outcome.pending?.[0]?.arguments ?? "{}") as { steps: string[] }).steps;
          const state = JSON.parse(JSON.stringify(outcome.state)) as WorkflowState;
          outcome = await workflow().run("task", { state, decisions: { [outcome.pending?.[0]?.id ?? ""]: decision } });
          if (decision.action === "reject") {
            rejectionsInARow++;
            if (rejectionsInARow === 2) expect(outcome).toMatchObject({ stopReason: "no-answer" });
            else expect(outcome.stopReason).toBe("awaiting-user");
            continue;
          }
          const approved = decision.action === "edit" ? (decision.arguments as { steps: string[] }).steps : proposed;
          expect(outcome.stopReason).toBe("final");
          expect(executed).toEqual(approved);
        }
        if (outcome.stopReason === "no-answer") expect(executed).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});
