import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alignLists } from "./list-alignment.js";

describe("alignLists", () => {
  it("keeps an unchanged list", () => {
    expect(alignLists(["a", "b"], ["a", "b"])).toEqual([
      { kind: "kept", from: 0, to: 0 },
      { kind: "kept", from: 1, to: 1 },
    ]);
  });

  it("sees an insertion in the middle as one addition, not every later item changed", () => {
    expect(alignLists(["a", "b", "c"], ["a", "x", "b", "c"])).toEqual([
      { kind: "kept", from: 0, to: 0 },
      { kind: "added", to: 1 },
      { kind: "kept", from: 1, to: 2 },
      { kind: "kept", from: 2, to: 3 },
    ]);
  });

  it("pairs a rewritten item with the one it replaced, and lists a removal where the item sat", () => {
    expect(alignLists(["a", "b", "c", "d"], ["a", "B", "d"])).toEqual([
      { kind: "kept", from: 0, to: 0 },
      { kind: "replaced", from: 1, to: 1 },
      { kind: "removed", from: 2 },
      { kind: "kept", from: 3, to: 2 },
    ]);
  });

  it("pairs items a similarity says belong together before pairing the rest by position", () => {
    // "b" became "B" with its content kept; "a" was dropped and "x" added after it.
    const similar = (from: number, to: number) => from === 1 && to === 0;
    expect(alignLists(["a", "b", "c"], ["B", "x", "c"], similar)).toEqual([
      { kind: "removed", from: 0 },
      { kind: "replaced", from: 1, to: 0 },
      { kind: "added", to: 1 },
      { kind: "kept", from: 2, to: 2 },
    ]);
    expect(alignLists(["a", "b", "c"], ["B", "x", "c"])).toEqual([
      { kind: "replaced", from: 0, to: 0 },
      { kind: "replaced", from: 1, to: 1 },
      { kind: "kept", from: 2, to: 2 },
    ]);
  });

  it("recognises a moved item", () => {
    expect(alignLists(["a", "b", "c"], ["c", "a", "b"])).toEqual([
      { kind: "moved", from: 2, to: 0 },
      { kind: "kept", from: 0, to: 1 },
      { kind: "kept", from: 1, to: 2 },
    ]);
  });

  it("accounts for every item of both lists exactly once", () => {
    const list = fc.array(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 7 });
    fc.assert(
      fc.property(list, list, fc.func(fc.boolean()), (before, after, similar) => {
        const aligned = alignLists(before, after, (i, j) => similar(i, j));
        const froms = aligned.flatMap((a) => ("from" in a ? [a.from] : [])).sort((x, y) => x - y);
        const tos = aligned.flatMap((a) => ("to" in a ? [a.to] : []));
        expect(froms).toEqual(before.map((_, i) => i));
        expect(tos).toEqual(after.map((_, j) => j));
        for (const a of aligned) {
          if (a.kind === "kept" || a.kind === "moved") expect(before[a.from]).toBe(after[a.to]);
          if (a.kind === "replaced") expect(before[a.from]).not.toBe(after[a.to]);
        }
      }),
    );
  });
});
