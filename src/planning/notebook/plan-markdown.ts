import type { PlanData, PlanState, SubTaskData } from "./plan.js";

// The checkbox prefixes are a format fact of the reference system: models and viewers read them.
const CHECKBOX: Record<PlanState, string> = {
  todo: "- [ ] ",
  in_progress: "- [ ] [WIP]",
  done: "- [x] ",
  abandoned: "- [ ] [Abandoned]",
};

/** "2026-03-31T21:33:10.790Z" → "2026-03-31 21:33:10.790" (UTC), the way plans print times. */
export function formatTimestamp(iso: string): string {
  return iso.replace("T", " ").replace(/Z$/, "");
}

/** One checklist line; the detailed form adds tab-indented lines with the subtask's fields. */
export function subtaskToMarkdown(subtask: SubTaskData, detailed = false): string {
  const lines = [`${CHECKBOX[subtask.state]}${subtask.name}`];
  if (detailed) {
    lines.push(
      `\t- Created At: ${formatTimestamp(subtask.createdAt)}`,
      `\t- Description: ${subtask.description}`,
      `\t- Expected Outcome: ${subtask.expectedOutcome}`,
      `\t- State: ${subtask.state}`,
    );
    if (subtask.state === "done") {
      if (subtask.finishedAt) lines.push(`\t- Finished At: ${formatTimestamp(subtask.finishedAt)}`);
      lines.push(`\t- Outcome: ${subtask.outcome ?? ""}`);
    }
  }
  return lines.join("\n");
}

export function planToMarkdown(plan: PlanData, detailed = false): string {
  return [
    `# ${plan.name}`,
    `**Description**: ${plan.description}`,
    `**Expected Outcome**: ${plan.expectedOutcome}`,
    `**State**: ${plan.state}`,
    `**Created At**: ${formatTimestamp(plan.createdAt)}`,
    "## Subtasks",
    ...plan.subtasks.map((subtask) => subtaskToMarkdown(subtask, detailed)),
  ].join("\n");
}
