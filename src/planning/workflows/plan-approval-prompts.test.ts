import { describe, expect, it } from "vitest";
import { planRejectedAnswer, planReviewNote, rejectedPlanFeedback, stepEditChanges } from "./plan-approval-prompts.js";
import { planRejectedNote, planRejectedResult } from "./plan-tool/plan-tool-prompts.js";
import { replannerPrompt, stepExecutorInput, stepPlannerRejectedNote } from "./plan-and-execute/plan-and-execute-prompts.js";
import type { PlanReview } from "./plan-review.js";

const proposed = ["Read a", "Read b", "Write the report"];

describe("plan approval prompts", () => {
  it("name each kind of change to the steps, numbered as in the edited plan", () => {
    expect(stepEditChanges(proposed, ["Read b", "Read c", "Write the report", "Check it"])).toEqual([
      'The proposed step "Read a" was removed.',
      'Step 2 "Read c" was added.',
      'Step 4 "Check it" was added.',
    ]);
    expect(stepEditChanges(proposed, ["Write the report", "Read a", "Read b (twice)"])).toEqual([
      'The step "Write the report" moved from position 3 to 1.',
      'Step 3 is now "Read b (twice)" (proposed: "Read b").',
    ]);
  });

  it("the review note carries rejected feedback and edits, and is null for a plain approval", () => {
    const approved: PlanReview = { proposed, decision: { action: "approve" }, earlier: [] };
    expect(planReviewNote(approved)).toBeNull();
    expect(planReviewNote({ ...approved, decision: { action: "edit", steps: proposed } })).toBeNull();
    const note = planReviewNote({
      proposed,
      decision: { action: "edit", steps: ["Read a", "Write the report"] },
      earlier: [{ steps: ["x"], feedback: "Read the files first." }],
    });
    expect(note).toBe(
      "The user rejected the planner's first proposal with this feedback: Read the files first.\n" +
        "The user changed the plan before it ran; follow the plan as changed. What changed:\n" +
        '- The proposed step "Read b" was removed.',
    );
  });

  it("the planner sees the rejected plan, the feedback and the shape to reply in", () => {
    expect(rejectedPlanFeedback(["a", "b"], "Too long.")).toMatch(/^The user rejected this plan:\n1\. a\n2\. b\nTheir feedback: Too long\.\n.*addresses the feedback/);
    expect(planRejectedNote(["a"], "No.")).toMatch(/Their feedback: No\.[\s\S]*\{"subtasks": \["…"\]\}/);
    expect(stepPlannerRejectedNote(["a"], "No.")).toMatch(/Their feedback: No\.[\s\S]*\{"steps": \["…"\]\}/);
  });

  it("a plan rejected twice says nothing was done, and the plan tool tells its caller not to work around the user", () => {
    const review: PlanReview = { proposed, decision: { action: "reject", feedback: "No." }, earlier: [{ steps: proposed, feedback: "Shorter." }] };
    expect(planRejectedAnswer(review)).toBe('Nothing was done: the user rejected the plan twice. Their feedback: "Shorter.", then "No.".');
    expect(planRejectedResult(review)).toMatch(/Do not carry out the task another way: tell the user/);
  });

  it("executors and the replanner are given the review note", () => {
    const input = { question: "Q?", plan: ["a", "b"], doneCount: 1, history: "h", current: "b", review: "NOTE" };
    expect(stepExecutorInput(input)).toContain("The user's review of the plan:\nNOTE");
    expect(stepExecutorInput({ ...input, review: null })).not.toContain("review");
    expect(replannerPrompt(input)).toMatch(/Keep to their changes.*\nNOTE/);
  });
});
