import { describe, expect, it } from "vitest";
import { printable, printableLine, TerminalOutput } from "./terminal-text.js";

describe("printable", () => {
  it("writes out every control and reordering code point, and keeps text, tabs and line ends", () => {
    expect(printable("a\r\x1b[2Kb\x07\x00\x7f\x9b31m\u202eevil\u202c\u2066x\u2069\u200f\u{e0041}")).toBe(
      "a\\r\\u001b[2Kb\\u0007\\u0000\\u007f\\u009b31m\\u202eevil\\u202c\\u2066x\\u2069\\u200f\\u{e0041}",
    );
    expect(printable("line one\r\nline two\n\tindented — ünïcödé 👩‍👩‍👧 中文")).toBe("line one\nline two\n\tindented — ünïcödé 👩‍👩‍👧 中文");
    expect(printableLine("one\ntwo\tthree\r")).toBe("one\\ntwo\\tthree\\r");
  });

  it("is idempotent: what it wrote out is printable already", () => {
    const once = printable("\x1b]0;t\x07\r\u202e");
    expect(printable(once)).toBe(once);
  });
});

describe("TerminalOutput", () => {
  it("makes everything written printable, passes its own control sequences as they are, in order", () => {
    const written: string[] = [];
    const target = Object.assign({ write: (text: string) => written.push(text) > 0 }, { isTTY: true, columns: 80, rows: 24 }) as unknown as NodeJS.WritableStream;
    const out = new TerminalOutput(target);
    out.write("plan\x1b[2J\n");
    out.control("\x1b[3A\x1b[J");
    out.write(Buffer.from("more\x07"));
    expect(written).toEqual(["plan\\u001b[2J\n", "\x1b[3A\x1b[J", "more\\u0007"]);
    expect([out.isTTY, out.columns, out.rows]).toEqual([true, 80, 24]);
  });
});
