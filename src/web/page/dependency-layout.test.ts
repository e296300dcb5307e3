import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { layoutDependencyGraph } from "./dependency-layout.js";

const item = (id: string, ...blockedBy: string[]) => ({ id, blockedBy });

describe("layoutDependencyGraph", () => {
  it("puts each item one column right of the last item it waits for", () => {
    const layout = layoutDependencyGraph([item("1"), item("2", "1"), item("3", "1"), item("4", "2", "3"), item("5")]);
    const layers = Object.fromEntries(layout.nodes.map((n) => [n.id, n.layer]));
    expect(layers).toEqual({ "1": 0, "2": 1, "3": 1, "4": 2, "5": 0 });
    expect(layout.edges).toEqual([
      { from: "1", to: "2" },
      { from: "1", to: "3" },
      { from: "2", to: "4" },
      { from: "3", to: "4" },
    ]);
    const last = layout.nodes.find((n) => n.id === "4")!;
    expect(layout.width).toBe(last.x + layout.nodeWidth);
  });

  it("draws cycles, self-loops and unknown blockers without hanging", () => {
    const layout = layoutDependencyGraph([item("a", "b"), item("b", "a"), item("c", "c", "ghost")]);
    expect(layout.nodes).toHaveLength(3);
    expect(layout.edges).toEqual([
      { from: "b", to: "a" },
      { from: "a", to: "b" },
    ]);
  });

  it("runs unchanged from its source text, as the page uses it", () => {
    const rebuilt = new Function(`return (${layoutDependencyGraph.toString()})`)() as typeof layoutDependencyGraph;
    const items = [item("1"), item("2", "1"), item("3", "2")];
    expect(rebuilt(items)).toEqual(layoutDependencyGraph(items));
  });

  it("never puts two boxes on the same spot, and every edge goes rightwards in an acyclic graph", () => {
    const dag = fc
      .integer({ min: 1, max: 25 })
      .chain((n) =>
        fc.tuple(...Array.from({ length: n }, (_, i) => fc.subarray(Array.from({ length: i }, (_, j) => String(j))))).map((blockers) =>
          blockers.map((blockedBy, i) => item(String(i), ...blockedBy)),
        ),
      );
    fc.assert(
      fc.property(dag, (items) => {
        const layout = layoutDependencyGraph(items);
        const spots = new Set(layout.nodes.map((n) => `${n.x},${n.y}`));
        expect(spots.size).toBe(items.length);
        const layer = new Map(layout.nodes.map((n) => [n.id, n.layer]));
        for (const edge of layout.edges) expect(layer.get(edge.from)!).toBeLessThan(layer.get(edge.to)!);
      }),
    );
  });
});
