// What the model reads when the user edited its create_plan call before approving it.
import { alignLists } from "../plan-edits/list-alignment.js";

/** A plan as create_plan receives it. */
export type PlanProposal = {
  name: string;
  description: string;
  expected_outcome: string;
  subtasks: { name: string; description: string; expected_outcome: string }[];
};

type ProposedSubtask = PlanProposal["subtasks"][number];

/** One line per change the user made to the model's proposal, subtasks numbered as in the edited plan (0-based). */
export function planEditChanges(proposed: PlanProposal, edited: PlanProposal): string[] {
  const changes: string[] = [];
  if (edited.name !== proposed.name) changes.push(`The plan's name is now '${edited.name}' (you proposed '${proposed.name}').`);
  if (edited.description !== proposed.description) changes.push(`The plan's description is now: ${edited.description}`);
  if (edited.expected_outcome !== proposed.expected_outcome) {
    changes.push(`The plan's expected outcome is now: ${edited.expected_outcome}`);
  }
  const before = proposed.subtasks;
  const after = edited.subtasks;
  // A subtask renamed but otherwise kept is the same subtask; one rewritten in place replaces the old one.
  const sameWork = (from: number, to: number) =>
    before[from]!.description === after[to]!.description || before[from]!.expected_outcome === after[to]!.expected_outcome;
  for (const step of alignLists(before.map((s) => s.name), after.map((s) => s.name), sameWork)) {
    switch (step.kind) {
      case "added":
        changes.push(`Subtask ${step.to} '${after[step.to]!.name}' was added. ${details(after[step.to]!)}`);
        break;
      case "removed":
        changes.push(`Your subtask '${before[step.from]!.name}' was removed.`);
        break;
      case "replaced": {
        const [was, now] = [before[step.from]!, after[step.to]!];
        if (was.description === now.description && was.expected_outcome === now.expected_outcome) {
          changes.push(`Subtask ${step.to} '${was.name}' was renamed to '${now.name}'.`);
        } else changes.push(`Subtask ${step.to} is now '${now.name}', replacing your '${was.name}'. ${details(now)}`);
        break;
      }
      case "moved":
      case "kept": {
        const [was, now] = [before[step.from]!, after[step.to]!];
        if (step.kind === "moved") changes.push(`Subtask '${now.name}' moved from position ${step.from} to ${step.to}.`);
        if (was.description !== now.description) changes.push(`Subtask ${step.to} '${now.name}' has a new description: ${now.description}`);
        if (was.expected_outcome !== now.expected_outcome) {
          changes.push(`Subtask ${step.to} '${now.name}' has a new expected outcome: ${now.expected_outcome}`);
        }
      }
    }
  }
  return changes;
}

function details(subtask: ProposedSubtask): string {
  return `Description: ${subtask.description} Expected outcome: ${subtask.expected_outcome}`;
}

/** Follows create_plan's usual result when the user edited the call; `proposed` is null when the model's arguments were not a valid plan. */
export function planEditNote(proposed: PlanProposal | null, edited: PlanProposal, planMarkdown: string): string {
  if (proposed === null) {
    return `The user replaced your proposal, which was not a valid plan, with this one. Follow it:\n${planMarkdown}`;
  }
  const changes = planEditChanges(proposed, edited);
  if (changes.length === 0) return "The user reviewed your proposal and approved it unchanged.";
  return [
    "The user edited your proposal before approving it. Follow the plan as edited, not as you proposed it. What changed:",
    ...changes.map((change) => `- ${change}`),
    `The plan now reads:\n${planMarkdown}`,
  ].join("\n");
}
