import { Writable } from "node:stream";

/**
 * Code points a terminal would act on instead of showing, or that hide or reorder what it shows:
 * C0 controls but newline and tab (carriage return, backspace and escape rewrite what is on screen;
 * escape also starts OSC 52, the clipboard, and OSC 0, the window title), DEL, C1 controls (U+009B is a
 * second CSI), the bidirectional controls that make text read in another order than it runs, the line
 * and paragraph separators, and the invisible tag characters.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|[\u{e0000}-\u{e007f}]/gu;

const NAMED: Record<string, string> = { "\r": "\\r", "\b": "\\b", "\f": "\\f", "\v": "\\v" };

/** A code point as a JavaScript string escape, so that what was hidden in the text is seen, not obeyed. */
function visible(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/**
 * `text` as it may reach a terminal: every code point in UNSAFE written out as an escape (`\r`,
 * `\u001b`, `\u202e`), line ends (`\r\n` too) kept. What a model, a tool or a server sends is hostile
 * input: a plan step's "\r\u001b[2K" must not erase the half of it the user is asked to approve.
 */
export function printable(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(UNSAFE, visible);
}

/** As printable, on one line: a line end or tab inside is written out too, so one line cannot pass for two. */
export function printableLine(text: string): string {
  return printable(text).replace(/\n/g, "\\n").replace(/\t/g, "\\t");
}

type Terminal = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };

/**
 * The one way the `stepwise` command writes to its standard output and error: everything written is
 * made printable first, so no command, view or prompt can forget to; the CLI's own cursor movements
 * (the live checklist's redraw) go through `control`, the only way to send a control sequence.
 */
export class TerminalOutput extends Writable {
  readonly #target: Terminal;

  constructor(target: Terminal) {
    super({ decodeStrings: false });
    this.#target = target;
  }

  // Passed on at once, so writes and control sequences keep their order; the target buffers as before.
  override _write(chunk: string | Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.#target.write(printable(typeof chunk === "string" ? chunk : chunk.toString("utf8")));
    done();
  }

  /**
   * Calls `quit` when the target's reader has gone (EPIPE: the `head` of `| head` exited), once for
   * each write that finds it gone; any other error of the target is thrown, as it was unhandled before.
   */
  whenReaderLeaves(quit: () => void): void {
    this.#target.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
      quit();
    });
  }

  /** A control sequence of the CLI's own, written as it is. */
  control(sequence: string): void {
    this.#target.write(sequence);
  }

  get isTTY(): boolean {
    return this.#target.isTTY === true;
  }

  get columns(): number | undefined {
    return this.#target.columns;
  }

  get rows(): number | undefined {
    return this.#target.rows;
  }
}

/** Writes the CLI's own control sequence: through `control` on a TerminalOutput, as it is on anything else. */
export function writeControl(out: NodeJS.WritableStream, sequence: string): void {
  if (out instanceof TerminalOutput) out.control(sequence);
  else out.write(sequence);
}
