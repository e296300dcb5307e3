/** One line of a diff: kept (" "), removed ("-") or added ("+"). */
export type DiffLine = { op: " " | "-" | "+"; text: string };

/** Above this many line pairs the middle is shown as all removed, then all added, rather than aligned. */
const MAX_ALIGNED_PAIRS = 1_000_000;

/**
 * A line diff of two texts: the common head and tail kept, the middle aligned on its longest common
 * subsequence of lines. An empty `before` reads as an added file.
 */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = lines(before);
  const b = lines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middle = alignLines(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  const kept = (texts: string[]): DiffLine[] => texts.map((text) => ({ op: " ", text }));
  return [...kept(a.slice(0, head)), ...middle, ...kept(a.slice(a.length - tail))];
}

/** A text's lines; a final newline ends the last line rather than starting an empty one. */
function lines(text: string): string[] {
  if (text === "") return [];
  const all = text.split("\n");
  if (all.at(-1) === "") all.pop();
  return all;
}

function alignLines(a: string[], b: string[]): DiffLine[] {
  const removed = a.map((text): DiffLine => ({ op: "-", text }));
  const added = b.map((text): DiffLine => ({ op: "+", text }));
  if (a.length === 0 || b.length === 0 || a.length * b.length > MAX_ALIGNED_PAIRS) return [...removed, ...added];
  // common[i][j]: the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const common = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] = a[i] === b[j] ? common[(i + 1) * width + j + 1]! + 1 : Math.max(common[(i + 1) * width + j]!, common[i * width + j + 1]!);
    }
  }
  const lines: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      lines.push({ op: " ", text: a[i]! });
      i++;
      j++;
    } else if (common[(i + 1) * width + j]! >= common[i * width + j + 1]!) lines.push({ op: "-", text: a[i++]! });
    else lines.push({ op: "+", text: b[j++]! });
  }
  return [...lines, ...removed.slice(i), ...added.slice(j)];
}
