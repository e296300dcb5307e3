import type { AgentEvent } from "../core/events.js";
import type { PlanFallback } from "../planning/workflows/workflow-events.js";
import type { Checklist, ChecklistItem } from "../runs/checklist.js";
import { checklistLines, oneLine } from "./checklist-text.js";
import { printable, writeControl } from "./terminal-text.js";
import { WrittenText } from "./written-text.js";

/** How a run shows on a terminal: a live checklist, or plain log lines when stdout is not a terminal. */
export interface RunView {
  event(event: AgentEvent): void;
  /** A message for the user (on stderr) that must not tear the live checklist: Ctrl-C's, say. */
  notice(text: string): void;
  /** Prints the final plan and the answer; the view is done after this. */
  finish(lines: string[]): void;
}

/** A tool's name as the model called it: real ones are at most 64 characters, a made-up one may be 100 KB. */
const TOOL_NAME_LIMIT = 64;

function toolLine(event: Extract<AgentEvent, { type: "tool-end" }>): string {
  const mark = event.result.isError ? "!" : "·";
  return `${mark} ${oneLine(event.call.name, TOOL_NAME_LIMIT)} ${oneLine(event.call.arguments, 70)} → ${oneLine(event.result.text, 60)}`;
}

/** What a hint told the model, in one line: the call it recommends, or its first line. */
function hintLine(event: Extract<AgentEvent, { type: "hint-added" }>): string {
  const { next } = event;
  if (!next) return `hint: ${oneLine(event.text.replace(/<\/?system-hint>/g, "").split("\n")[0] ?? "", 100)}`;
  const args = [...Object.entries(next.args).map(([key, value]) => `${key}=${String(value)}`), ...Object.keys(next.modelWrites).map((key) => `${key}=…`)];
  return `hint: next ${oneLine(`${next.tool}(${args.join(", ")})`, 100)}`;
}

const FALLBACK_WORDS: Record<PlanFallback, string> = {
  "task-as-one-step": "the whole task runs as one step",
  "answer-without-steps": "the answer is written without running any step",
  "keep-remaining-steps": "the run goes on with the steps it had",
};

/** A planner that gave nothing usable, and what the run does instead: a run that still ends well must not hide it. */
function planningFailedLine(event: Extract<AgentEvent, { type: "planning-failed" }>): string {
  const tries = event.errors.length > 1 ? ` (${event.errors.length} tries)` : "";
  return `warning: the ${event.workflow} planner's reply could not be used${tries}: ${oneLine(event.errors.at(-1) ?? "no reply", 120)}; ${FALLBACK_WORDS[event.instead]}`;
}

function foldLine(event: Extract<AgentEvent, { type: "context-folded" }>): string {
  const stubbed = event.stubbed.length > 0 ? `, ${event.stubbed.length} tool result(s)` : "";
  const tokens = (n: number) => `~${Math.round(n).toLocaleString("en-US")}`;
  return `context folded: ${event.units.length} unit(s)${stubbed}; request ${tokens(event.tokensBefore)} → ${tokens(event.tokensAfter)} tokens`;
}

/** The items that started since the last checklist, by id and label (a relabelled step counts as new). */
function newlyStarted(items: readonly ChecklistItem[], seen: Set<string>): ChecklistItem[] {
  return items.filter((item) => {
    const key = `${item.id}\n${item.label}`;
    if (item.status !== "in_progress" || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * For pipes and logs: one line per tool call, a `plan:` line when the plan's title or count changes,
 * a `now:` line for steps that start without the count changing (parallel steps, say), and one per
 * hint that says something new, so no line repeats another.
 */
export function plainLogView(out: NodeJS.WritableStream, err: NodeJS.WritableStream): RunView {
  let lastCount = "";
  let lastHintLine = "";
  const started = new Set<string>();
  // The agent's answer is written as it comes; any other line starts on a line of its own.
  const text = new WrittenText(out);
  const log = {
    write: (chunk: string) => {
      text.breakLine();
      out.write(chunk);
    },
  };
  return {
    event(event) {
      if (text.event(event)) return;
      if (event.type === "tool-end") log.write(`${toolLine(event)}\n`);
      else if (event.type === "checklist-updated") {
        const { title, items } = event.checklist;
        const done = items.filter((i) => i.status === "done").length;
        const count = `${title} ${done}/${items.length} done`;
        const now = newlyStarted(items, started);
        const nowText = oneLine(now.map((item) => oneLine(item.label, 60)).join(", "), 120);
        if (count !== lastCount) log.write(`plan: ${count}${now.length > 0 ? `; now: ${nowText}` : ""}\n`);
        else if (now.length > 0) log.write(`now: ${nowText}\n`);
        lastCount = count;
      } else if (event.type === "hint-added") {
        const line = hintLine(event);
        if (line !== lastHintLine) log.write(`${line}\n`);
        lastHintLine = line;
      } else if (event.type === "workflow-planning-started") log.write(`planning (round ${event.round})…\n`);
      else if (event.type === "context-folded") log.write(`${foldLine(event)}\n`);
      else if (event.type === "planning-failed") {
        text.breakLine();
        err.write(`${planningFailedLine(event)}\n`);
      }
    },
    // After the terminal's own "^C" echo, when there is one.
    notice: (notice) => void err.write(`\n${notice}`),
    finish(lines) {
      text.breakLine();
      for (const line of text.closing(lines)) out.write(`${line}\n`);
    },
  };
}

type Terminal = NodeJS.WritableStream & { columns?: number; rows?: number };

/**
 * For a terminal: tool calls scroll past while the checklist stays redrawn in place below them.
 * Lines are cut to the terminal's width and the checklist to its height, so the cursor can always
 * climb back over what was drawn; anything else written meanwhile goes through `notice`, which
 * erases the checklist first, so no stale copy is left behind.
 */
export function liveChecklistView(out: Terminal, err: NodeJS.WritableStream = out): RunView {
  let checklist: Checklist | null = null;
  let drawn = 0;
  // Made printable before it is measured: an escape written out is longer than the character was.
  const fit = (text: string) => {
    const line = printable(text);
    const width = out.columns ?? 0;
    return width > 1 && line.length >= width ? `${line.slice(0, width - 2)}…` : line;
  };
  const erase = () => {
    if (drawn > 0) writeControl(out, `\x1b[${drawn}A\x1b[J`);
    drawn = 0;
  };
  // While the agent's answer is being written the checklist stays away, so the text flows in one place.
  const text = new WrittenText(out, erase);
  const draw = () => {
    if (!checklist || text.writing) return;
    let lines = checklistLines(checklist).map(fit);
    const room = (out.rows ?? 0) - 2;
    if (room > 1 && lines.length > room) lines = [...lines.slice(0, room - 1), `  … ${lines.length - room + 1} more`];
    out.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  const above = (write: () => void) => {
    erase();
    text.breakLine();
    write();
    draw();
  };
  return {
    event(event) {
      if (text.event(event)) return;
      if (event.type === "model-end" && drawn === 0) draw();
      if (event.type === "tool-end") above(() => out.write(`${fit(toolLine(event))}\n`));
      else if (event.type === "context-folded") above(() => out.write(`${fit(foldLine(event))}\n`));
      else if (event.type === "planning-failed") above(() => err.write(`${planningFailedLine(event)}\n`));
      else if (event.type === "checklist-updated") {
        erase();
        checklist = event.checklist;
        draw();
      }
    },
    notice: (notice) => above(() => err.write(notice)),
    finish(lines) {
      text.breakLine();
      erase();
      if (checklist) out.write(`${checklistLines(checklist).join("\n")}\n`);
      for (const line of text.closing(lines)) out.write(`${line}\n`);
    },
  };
}
