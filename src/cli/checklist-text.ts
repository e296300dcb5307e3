import type { Checklist, ChecklistItem, ChecklistStatus } from "../runs/checklist.js";

const MARK: Record<ChecklistStatus, string> = {
  todo: "[ ]",
  in_progress: "[>]",
  done: "[x]",
  abandoned: "[-]",
  failed: "[!]",
};

/** The checklist as terminal lines: a title with a count, then one line per item. */
export function checklistLines(checklist: Checklist): string[] {
  const done = checklist.items.filter((item) => item.status === "done").length;
  return [`${checklist.title} (${done}/${checklist.items.length} done)`, ...checklist.items.map(itemLine)];
}

function itemLine(item: ChecklistItem): string {
  const waits = item.blockedBy.length > 0 ? `  (after ${item.blockedBy.join(", ")})` : "";
  const owner = item.owner ? `  @${item.owner}` : "";
  return `  ${MARK[item.status]} ${item.id}. ${item.label}${owner}${waits}`;
}

export function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
