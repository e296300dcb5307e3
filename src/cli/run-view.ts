import type { AgentEvent } from "../core/events.js";
import type { Checklist } from "./checklist.js";
import { checklistLines, oneLine } from "./checklist-text.js";
import { WrittenText } from "./written-text.js";

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

/**
 * For pipes and logs: one line per tool call and per plan change, one per hint that says something
 * new, and the answer as it is written.
 */
export function plainLogView(out: NodeJS.WritableStream): RunView {
  let lastPlanLine = "";
  let lastHintLine = "";
  const text = new WrittenText(out);
  const line = (content: string) => {
    text.breakLine();
    out.write(`${content}\n`);
  };
  return {
    event(event) {
      if (text.event(event)) return;
      if (event.type === "tool-end") line(toolLine(event));
      else if (event.type === "checklist-updated") {
        const { title, items } = event.checklist;
        const done = items.filter((i) => i.status === "done").length;
        const current = items.find((i) => i.status === "in_progress");
        const plan = `plan: ${title} ${done}/${items.length} done${current ? `; now: ${current.label}` : ""}`;
        if (plan !== lastPlanLine) line(plan);
        lastPlanLine = plan;
      } else if (event.type === "hint-added") {
        const hint = hintLine(event);
        if (hint !== lastHintLine) line(hint);
        lastHintLine = hint;
      } else if (event.type === "workflow-planning-started") line(`planning (round ${event.round})…`);
      else if (event.type === "context-folded") {
        line(`context folded: ${event.units.length} unit(s), ~${event.tokensBefore} → ~${event.tokensAfter} tokens`);
      }
    },
    finish(lines) {
      text.breakLine();
      for (const closing of text.closing(lines)) out.write(`${closing}\n`);
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
  const text = new WrittenText(out, erase);
  return {
    event(event) {
      // While text is being written the checklist stays away, so the text flows in one place.
      if (text.event(event)) return;
      if (event.type === "model-end" && drawn === 0) draw();
      if (event.type === "tool-end") {
        text.breakLine();
        erase();
        out.write(`${fit(toolLine(event))}\n`);
        if (!text.writing) draw();
      } else if (event.type === "checklist-updated") {
        erase();
        checklist = event.checklist;
        if (!text.writing) draw();
      }
    },
    finish(lines) {
      text.breakLine();
      erase();
      if (checklist) out.write(`${checklistLines(checklist).join("\n")}\n`);
      for (const line of text.closing(lines)) out.write(`${line}\n`);
    },
  };
}
