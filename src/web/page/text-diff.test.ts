import { describe, expect, it } from "vitest";
import { lineDiff } from "./text-diff.js";

const show = (before: string, after: string) => lineDiff(before, after).map((line) => line.op + line.text);

describe("lineDiff", () => {
  it("keeps the common lines and marks what was removed and added, in order", () => {
    expect(show("a\nb\nc\nd", "a\nB\nc\nd\ne")).toEqual([" a", "-b", "+B", " c", " d", "+e"]);
    expect(show("one\ntwo\nthree", "two\nthree\nfour")).toEqual(["-one", " two", " three", "+four"]);
  });

  it("shows a new file as added lines and an unchanged file as kept lines", () => {
    expect(show("", "x\ny")).toEqual(["+x", "+y"]);
    expect(show("same\nline\n", "same\nline\n")).toEqual([" same", " line"]);
    expect(show("a\n", "a\nb\n")).toEqual([" a", "+b"]);
  });

  it("aligns moved blocks on their longest common run of lines", () => {
    expect(show("h\n1\n2\n3\nt", "h\n2\n3\n1\nt")).toEqual([" h", "-1", " 2", " 3", "+1", " t"]);
  });

  it("still answers, unaligned, for texts too large to align", () => {
    const before = Array.from({ length: 1500 }, (_, i) => `a${i}`).join("\n");
    const after = Array.from({ length: 1500 }, (_, i) => `b${i}`).join("\n");
    const diff = lineDiff(before, after);
    expect(diff.filter((line) => line.op === "-")).toHaveLength(1500);
    expect(diff.filter((line) => line.op === "+")).toHaveLength(1500);
  });
});
