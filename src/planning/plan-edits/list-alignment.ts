/** How one item of an edited list relates to the list it was edited from. */
export type Alignment =
  | { kind: "kept"; from: number; to: number }
  /** The same item, now in a different order relative to the others. */
  | { kind: "moved"; from: number; to: number }
  /** A different item in the same place: a rename or a rewrite. */
  | { kind: "replaced"; from: number; to: number }
  | { kind: "added"; to: number }
  | { kind: "removed"; from: number };

/**
 * Aligns an edited list with the original by item key, the way a reader would: the longest run of
 * items kept in order anchors the rest; an item found on both sides out of that run moved; between two
 * anchors, items are paired as replaced — those `similar` says belong together first (a renamed item
 * that kept its content), then by position — and what is left over was added or removed.
 * The result is in the edited list's order, each removal where its item used to sit.
 */
export function alignLists(
  before: readonly string[],
  after: readonly string[],
  similar: (from: number, to: number) => boolean = () => false,
): Alignment[] {
  const anchors = longestCommonSubsequence(range(0, before.length), range(0, after.length), (i, j) => before[i] === after[j]);
  const pairedBefore = new Set(anchors.map(([from]) => from));
  const pairedAfter = new Set(anchors.map(([, to]) => to));
  const result: { order: number; alignment: Alignment }[] = anchors.map(([from, to]) => ({ order: to, alignment: { kind: "kept", from, to } }));

  for (let to = 0; to < after.length; to++) {
    if (pairedAfter.has(to)) continue;
    const from = before.findIndex((key, i) => !pairedBefore.has(i) && key === after[to]);
    if (from < 0) continue;
    pairedBefore.add(from);
    pairedAfter.add(to);
    result.push({ order: to, alignment: { kind: "moved", from, to } });
  }

  // Between anchors, similar items pair up first and split the gap again; the rest pair by position.
  for (const [gapBefore, gapAfter, toStart] of gaps(range(0, before.length), range(0, after.length), anchors)) {
    const left = {
      before: gapBefore.filter((i) => !pairedBefore.has(i)),
      after: gapAfter.filter((j) => !pairedAfter.has(j)),
    };
    const alike = longestCommonSubsequence(left.before, left.after, similar);
    for (const [from, to] of alike) result.push({ order: to, alignment: { kind: "replaced", from, to } });
    for (const [subBefore, subAfter, subStart] of gaps(left.before, left.after, alike, toStart)) {
      const paired = Math.min(subBefore.length, subAfter.length);
      for (let k = 0; k < paired; k++) {
        const to = subAfter[k] as number;
        result.push({ order: to, alignment: { kind: "replaced", from: subBefore[k] as number, to } });
      }
      const removedAt = (subAfter[paired - 1] ?? subStart) + 0.5;
      for (const from of subBefore.slice(paired)) result.push({ order: removedAt, alignment: { kind: "removed", from } });
      for (const to of subAfter.slice(paired)) result.push({ order: to, alignment: { kind: "added", to } });
    }
  }
  return result.sort((a, b) => a.order - b.order).map((entry) => entry.alignment);
}

/**
 * The runs of `a` and `b` between consecutive anchor pairs (and before the first, after the last),
 * each with the `b` index just before it (`start` before the first).
 */
function gaps(a: readonly number[], b: readonly number[], anchors: readonly (readonly [number, number])[], start = -1): [number[], number[], number][] {
  const result: [number[], number[], number][] = [];
  let previous: readonly [number, number] = [-Infinity, start];
  for (const anchor of [...anchors, [Infinity, Infinity] as const]) {
    const [lowA, lowB] = previous;
    const [highA, highB] = anchor;
    result.push([a.filter((i) => i > lowA && i < highA), b.filter((j) => j > lowB && j < highB), lowB]);
    previous = anchor;
  }
  return result;
}

/** The longest run of pairs `same` accepts, in order in both lists, as pairs of their elements. */
function longestCommonSubsequence(
  a: readonly number[],
  b: readonly number[],
  same: (x: number, y: number) => boolean,
): [number, number][] {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  const at = (i: number, j: number) => (table[i] as number[])[j] as number;
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      (table[i] as number[])[j] = same(a[i] as number, b[j] as number) ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (same(a[i] as number, b[j] as number)) pairs.push([a[i++] as number, b[j++] as number]);
    // On a tie, an item of the edited list counts as new or moved rather than an original as gone.
    else if (at(i, j + 1) >= at(i + 1, j)) j++;
    else i++;
  }
  return pairs;
}

function range(start: number, end: number): number[] {
  return Array.from({ length: Math.max(0, end - start) }, (_, k) => start + k);
}
