import type { Checklist, ChecklistItem, ChecklistStatus } from "../runs/checklist.js";

const MARK: Record<ChecklistStatus, string> = {
  todo: "[ ]",
  in_progress: "[>]",
  done: "[x]",
  abandoned: "[-]",
  failed: "[!]",
};

/** How long a plan's title or an item's label may be on the terminal: the model wrote them. */
const LABEL_LIMIT = 200;
/** Ids and owners are short; one a model made long is cut shorter. */
const NAME_LIMIT = 40;

/**
 * The checklist as terminal lines: a title with a count, then one line per item. Every part the
 * model wrote is one line and bounded, so a live view can count the lines it drew.
 */
export function checklistLines(checklist: Checklist): string[] {
  const done = checklist.items.filter((item) => item.status === "done").length;
  return [`${oneLine(checklist.title, LABEL_LIMIT)} (${done}/${checklist.items.length} done)`, ...checklist.items.map(itemLine)];
}

function itemLine(item: ChecklistItem): string {
  const name = (text: string) => oneLine(text, NAME_LIMIT);
  const waits = item.blockedBy.length > 0 ? `  (after ${oneLine(item.blockedBy.map(name).join(", "), LABEL_LIMIT)})` : "";
  const owner = item.owner ? `  @${name(item.owner)}` : "";
  return `  ${MARK[item.status]} ${name(item.id)}. ${oneLine(item.label, LABEL_LIMIT)}${owner}${waits}`;
}

/** `text` on one line (any run of whitespace, line ends included, is one space), cut to `max` characters. */
export function oneLine(text: string, max = 100): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
