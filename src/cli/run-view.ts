import type { AgentEvent } from "../core/events.js";
import type { Checklist } from "./checklist.js";
import { checklistLines, oneLine } from "./checklist-text.js";

/** How a run shows on a terminal: a live checklist, or plain log lines when stdout is not a terminal. */
export interface RunView {
  event(event: AgentEvent): void;
  /** Prints the final plan and the answer; the view is done after this. */
  finish(lines: string[]): void;
}

function toolLine(event: Extract<AgentEvent, { type: "tool-end" }>): string {
  const mark = event.result.isError ? "!" : "·";
  return `${mark} ${event.call.name} ${oneLine(event.call.arguments, 70)} → ${oneLine(event.result.text, 60)}`;
}

/** What a hint told the model, in one line: the call it recommends, or its first line. */
function hintLine(event: Extract<AgentEvent, { type: "hint-added" }>): string {
  const { next } = event;
  if (!next) return `hint: ${oneLine(event.text.replace(/<\/?system-hint>/g, "").split("\n")[0] ?? "", 100)}`;
  const args = [...Object.entries(next.args).map(([key, value]) => `${key}=${String(value)}`), ...Object.keys(next.modelWrites).map((key) => `${key}=…`)];
  return `hint: next ${next.tool}(${args.join(", ")})`;
}

/** For pipes and logs: one line per tool call and per plan change, and one per hint that says something new. */
export function plainLogView(out: NodeJS.WritableStream): RunView {
  let lastPlanLine = "";
  let lastHintLine = "";
  return {
    event(event) {
      if (event.type === "tool-end") out.write(`${toolLine(event)}\n`);
      else if (event.type === "checklist-updated") {
        const { title, items } = event.checklist;
        const done = items.filter((i) => i.status === "done").length;
        const current = items.find((i) => i.status === "in_progress");
        const line = `plan: ${title} ${done}/${items.length} done${current ? `; now: ${current.label}` : ""}`;
        if (line !== lastPlanLine) out.write(`${line}\n`);
        lastPlanLine = line;
      } else if (event.type === "hint-added") {
        const line = hintLine(event);
        if (line !== lastHintLine) out.write(`${line}\n`);
        lastHintLine = line;
      } else if (event.type === "context-folded") out.write(`context folded: ${event.units.length} unit(s)\n`);
    },
    finish(lines) {
      for (const line of lines) out.write(`${line}\n`);
    },
  };
}

/**
 * For a terminal: tool calls scroll past while the checklist stays redrawn in place below them.
 * Lines are cut to the terminal's width so a wrapped line never throws the redraw off.
 */
export function liveChecklistView(out: NodeJS.WritableStream & { columns?: number }): RunView {
  let checklist: Checklist | null = null;
  let drawn = 0;
  const fit = (line: string) => {
    const width = out.columns ?? 0;
    return width > 1 && line.length >= width ? `${line.slice(0, width - 2)}…` : line;
  };
  const erase = () => {
    if (drawn > 0) out.write(`\x1b[${drawn}A\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    if (!checklist) return;
    const lines = checklistLines(checklist).map(fit);
    out.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  return {
    event(event) {
      if (event.type === "tool-end") {
        erase();
        out.write(`${fit(toolLine(event))}\n`);
        draw();
      } else if (event.type === "checklist-updated") {
        erase();
        checklist = event.checklist;
        draw();
      }
    },
    finish(lines) {
      erase();
      if (checklist) out.write(`${checklistLines(checklist).join("\n")}\n`);
      for (const line of lines) out.write(`${line}\n`);
    },
  };
}
