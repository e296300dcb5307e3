import { boundedText } from "../core/bounded-quote.js";
import type { AgentEvent } from "../core/events.js";

/** How much of one answer is written as it comes; the rest stays in the run's record. */
export const ANSWER_LIMIT = 100_000;

/**
 * Writes the answer of the session's agent as the model writes it. Nested runs (sub-agents,
 * executors) show through their tool calls, and a workflow's planner, whose text is a plan, through
 * its plan. Other lines break an unfinished one first.
 */
export class WrittenText {
  readonly #out: NodeJS.WritableStream;
  /** Runs of the session's own agent: those started without a parent. */
  readonly #runs = new Set<string>();
  #writing = "";
  #midLine = false;
  /** The last text written out whole: the closing lines need not repeat it. */
  #last = "";

  readonly #beforeText: () => void;

  /** `beforeText` runs as a text begins: a live view clears its checklist out of the way. */
  constructor(out: NodeJS.WritableStream, beforeText: () => void = () => {}) {
    this.#out = out;
    this.#beforeText = beforeText;
  }

  /** True when the event was text and is written. */
  event(event: AgentEvent): boolean {
    if (event.type === "run-start" && !event.parent && event.runId) this.#runs.add(event.runId);
    if (!event.runId || !this.#runs.has(event.runId)) return false;
    if (event.type === "text-delta") {
      if (!this.#writing) this.#beforeText();
      const room = ANSWER_LIMIT - this.#writing.length;
      const shown = room > 0 ? event.text.slice(0, room) : "";
      if (shown) {
        this.#out.write(shown);
        this.#midLine = !shown.endsWith("\n");
      }
      this.#writing += event.text;
      return true;
    }
    if (event.type === "model-end" && this.#writing) {
      const leftOut = this.#writing.length - ANSWER_LIMIT;
      if (leftOut > 0) {
        this.breakLine();
        this.#out.write(`… (${leftOut} more characters left out; the whole text is in the run's record: stepwise ui)\n`);
      }
      this.breakLine();
      this.#last = this.#writing.trim();
      this.#writing = "";
    }
    return false;
  }

  get writing(): boolean {
    return this.#writing.length > 0;
  }

  breakLine(): void {
    if (this.#midLine) this.#out.write("\n");
    this.#midLine = false;
  }

  /** The closing lines without the answer when it was just written out as it came; each bounded as an answer is. */
  closing(lines: string[]): string[] {
    return (this.#last ? lines.filter((line) => line.trim() !== this.#last) : lines).map((line) => boundedText(line, ANSWER_LIMIT));
  }
}
