/** A node of the drawn graph: its layer (column) and row, and its box's top-left corner in pixels. */
export type LaidOutNode = { id: string; layer: number; row: number; x: number; y: number };
export type GraphLayout = {
  nodes: LaidOutNode[];
  /** `from` must finish before `to` can start. */
  edges: { from: string; to: string }[];
  width: number;
  height: number;
  nodeWidth: number;
  nodeHeight: number;
};

/**
 * A layered drawing of a dependency graph: each item sits one column right of the last item it waits
 * for, rows ordered by where their blockers sit to keep edges short. Blockers that are not items are
 * ignored, and a cycle is cut where it is found, so any input draws.
 *
 * The page draws its graph with it.
 */
export function layoutDependencyGraph(items: readonly { id: string; blockedBy: readonly string[] }[]): GraphLayout {
  const nodeWidth = 190;
  const nodeHeight = 42;
  const gapX = 56;
  const gapY = 14;
  const byId = new Map(items.map((item) => [item.id, item]));
  const layerOf = new Map<string, number>();
  const visiting = new Set<string>();
  const layer = (id: string): number => {
    const known = layerOf.get(id);
    if (known !== undefined) return known;
    if (visiting.has(id)) return -1; // a cycle: this edge is not followed
    visiting.add(id);
    let deepest = -1;
    for (const blocker of byId.get(id)?.blockedBy ?? []) {
      if (byId.has(blocker) && blocker !== id) deepest = Math.max(deepest, layer(blocker));
    }
    visiting.delete(id);
    layerOf.set(id, deepest + 1);
    return deepest + 1;
  };
  const columns: string[][] = [];
  for (const item of items) {
    const at = layer(item.id);
    (columns[at] ??= []).push(item.id);
  }
  const rowOf = new Map<string, number>();
  for (const column of columns) {
    if (!column) continue;
    const weight = (id: string): number => {
      const rows = (byId.get(id)?.blockedBy ?? []).map((b) => rowOf.get(b)).filter((r): r is number => r !== undefined);
      return rows.length === 0 ? Number.POSITIVE_INFINITY : rows.reduce((a, b) => a + b, 0) / rows.length;
    };
    const order = column.map((id, index) => ({ id, index, weight: weight(id) }));
    order.sort((a, b) => (a.weight === b.weight ? a.index - b.index : a.weight < b.weight ? -1 : 1));
    order.forEach((entry, row) => rowOf.set(entry.id, row));
  }
  const nodes = items.map((item) => {
    const at = layerOf.get(item.id) ?? 0;
    const row = rowOf.get(item.id) ?? 0;
    return { id: item.id, layer: at, row, x: at * (nodeWidth + gapX), y: row * (nodeHeight + gapY) };
  });
  const edges: { from: string; to: string }[] = [];
  for (const item of items) {
    for (const blocker of item.blockedBy) {
      if (byId.has(blocker) && blocker !== item.id) edges.push({ from: blocker, to: item.id });
    }
  }
  const tallest = Math.max(0, ...columns.map((column) => (column ? column.length : 0)));
  return {
    nodes,
    edges,
    width: Math.max(0, columns.length * (nodeWidth + gapX) - gapX),
    height: Math.max(0, tallest * (nodeHeight + gapY) - gapY),
    nodeWidth,
    nodeHeight,
  };
}
