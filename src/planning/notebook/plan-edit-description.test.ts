import { describe, expect, it } from "vitest";
import { planEditChanges, planEditNote, type PlanProposal } from "./plan-edit-description.js";

const proposal: PlanProposal = {
  name: "Ship",
  description: "Ship version 2.",
  expected_outcome: "Published.",
  subtasks: [
    { name: "Cut", description: "Tag it.", expected_outcome: "A tag." },
    { name: "Test", description: "Run the suite.", expected_outcome: "Green." },
    { name: "Publish", description: "Push it.", expected_outcome: "On the registry." },
  ],
};

const edit = (change: (plan: PlanProposal) => void): PlanProposal => {
  const copy = structuredClone(proposal);
  change(copy);
  return copy;
};

describe("what the model is told about the user's edit of its plan", () => {
  it("names each plan field the user changed", () => {
    const edited = edit((p) => {
      p.name = "Release";
      p.description = "Release version 2.1.";
      p.expected_outcome = "Announced.";
    });
    expect(planEditChanges(proposal, edited)).toEqual([
      "The plan's name is now 'Release' (you proposed 'Ship').",
      "The plan's description is now: Release version 2.1.",
      "The plan's expected outcome is now: Announced.",
    ]);
  });

  it("reports added, removed, renamed and rewritten subtasks by their place in the edited plan", () => {
    const edited = edit((p) => {
      p.subtasks[0]!.name = "Tag";
      p.subtasks.splice(1, 0, { name: "Lint", description: "Run the linter.", expected_outcome: "No warnings." });
      p.subtasks[2]!.description = "Run the whole suite twice.";
      p.subtasks.pop();
    });
    expect(planEditChanges(proposal, edited)).toEqual([
      "Subtask 0 'Cut' was renamed to 'Tag'.",
      "Subtask 1 'Lint' was added. Description: Run the linter. Expected outcome: No warnings.",
      "Subtask 2 'Test' has a new description: Run the whole suite twice.",
      "Your subtask 'Publish' was removed.",
    ]);
  });

  it("reports a subtask replaced by a different one, and a moved one", () => {
    const replaced = edit((p) => (p.subtasks[1] = { name: "Review", description: "Ask for review.", expected_outcome: "Approved." }));
    expect(planEditChanges(proposal, replaced)).toEqual([
      "Subtask 1 is now 'Review', replacing your 'Test'. Description: Ask for review. Expected outcome: Approved.",
    ]);
    const moved = edit((p) => p.subtasks.unshift(p.subtasks.pop()!));
    expect(planEditChanges(proposal, moved)).toEqual(["Subtask 'Publish' moved from position 2 to 0."]);
  });

  it("says so when nothing changed, and shows the plan when the proposal was no plan at all", () => {
    expect(planEditNote(proposal, proposal, "# Ship")).toBe("The user reviewed your proposal and approved it unchanged.");
    expect(planEditNote(null, proposal, "# Ship")).toMatch(/^The user replaced your proposal, which was not a valid plan, with this one\. Follow it:\n# Ship$/);
    const note = planEditNote(proposal, edit((p) => (p.name = "Release")), "# Release");
    expect(note).toMatch(/^The user edited your proposal before approving it\. Follow the plan as edited/);
    expect(note).toContain("\n- The plan's name is now 'Release'");
    expect(note).toMatch(/The plan now reads:\n# Release$/);
  });
});
