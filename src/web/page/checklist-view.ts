import type { Checklist } from "../../runs/checklist.js";
import { layoutDependencyGraph } from "./dependency-layout.js";
import { card, el, svg } from "./dom.js";
import { readableLabel, wrapLabel } from "./node-label.js";

const MARKS: Record<string, string> = { todo: "○", in_progress: "◐", done: "✓", abandoned: "⊘", failed: "✗" };
const STATUS_TEXT: Record<string, string> = { todo: "todo", in_progress: "in progress", done: "done", abandoned: "abandoned", failed: "failed" };
/** A board's tasks and a todo list's items are pending and completed, in the words their tools use. */
const ITEM_STATUS_TEXT: Partial<Record<Checklist["kind"], Record<string, string>>> = {
  tasks: { ...STATUS_TEXT, todo: "pending", done: "completed" },
  todos: { ...STATUS_TEXT, todo: "pending", done: "completed" },
};

function statusText(kind: Checklist["kind"], status: string): string {
  return (ITEM_STATUS_TEXT[kind] ?? STATUS_TEXT)[status] ?? status;
}
const HEADINGS: Record<Checklist["kind"], string> = { plan: "Plan", tasks: "Task board", todos: "Todo list", workflow: "Workflow" };
/** Characters per line of a graph node's label, at 12px in its box. */
const NODE_LINE_CHARS = 27;

/** The run's plan as it stands: a checklist, and a dependency graph when items wait for others. */
export function checklistSection(checklist: Checklist | null): HTMLElement {
  if (!checklist) return card("checklist", "Plan", el("p", { class: "empty", text: "No plan yet." }));
  const done = checklist.items.filter((item) => item.status === "done").length;
  const heading = HEADINGS[checklist.kind];
  const list = el(
    "ul",
    { class: "checklist", "data-kind": checklist.kind },
    checklist.items.map((item) =>
      el(
        "li",
        { "data-item": item.id, "data-status": item.status },
        el("span", { class: "mark", "aria-hidden": "true", text: MARKS[item.status] ?? "?" }),
        el(
          "span",
          {},
          el("span", { class: "label", text: readableLabel(item.label), title: item.label }),
          " ",
          el("span", { class: "status-text", text: "(" + statusText(checklist.kind, item.status) + ")" }),
          item.owner ? el("span", { class: "owner", text: " · " + item.owner }) : null,
          item.blockedBy.length ? el("span", { class: "detail", text: " · after " + item.blockedBy.join(", ") }) : null,
          item.detail ? el("div", { class: "detail", text: item.detail }) : null,
        ),
      ),
    ),
  );
  const hasEdges = checklist.items.some((item) => item.blockedBy.length > 0);
  return card(
    "checklist",
    [checklist.title === heading ? heading : heading + ": " + checklist.title, " ", el("span", { class: "meta", text: done + "/" + checklist.items.length + " done" })],
    list,
    hasEdges ? el("h3", { text: "Dependencies" }) : null,
    hasEdges ? dependencyGraph(checklist) : null,
  );
}

function dependencyGraph({ kind, items }: Checklist): SVGElement {
  const layout = layoutDependencyGraph(items);
  const pad = 8;
  const at = new Map(layout.nodes.map((node) => [node.id, node]));
  const edges = layout.edges.map((edge) => {
    const from = at.get(edge.from)!;
    const to = at.get(edge.to)!;
    const x1 = from.x + layout.nodeWidth + pad;
    const y1 = from.y + layout.nodeHeight / 2 + pad;
    const x2 = to.x + pad - 2;
    const y2 = to.y + layout.nodeHeight / 2 + pad;
    const mid = (x1 + x2) / 2;
    return svg("path", { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`, "marker-end": "url(#arrow)" });
  });
  const boxes = items.map((item) => {
    const node = at.get(item.id)!;
    const lines = wrapLabel(item.id + " · " + readableLabel(item.label), NODE_LINE_CHARS, 2);
    const top = node.y + pad + layout.nodeHeight / 2 - (lines.length - 1) * 7 + 4;
    const text = svg("text", { x: node.x + pad + 8, y: top }, ...lines.map((line, i) => svg("tspan", { x: node.x + pad + 8, dy: i === 0 ? 0 : 14 }, line)));
    return svg(
      "g",
      { "data-node": item.id, "data-status": item.status },
      svg("rect", { x: node.x + pad, y: node.y + pad, width: layout.nodeWidth, height: layout.nodeHeight, rx: 6 }),
      text,
      svg("title", {}, item.label + " (" + statusText(kind, item.status) + ")"),
    );
  });
  const width = layout.width + pad * 2;
  const height = layout.height + pad * 2;
  return svg(
    "svg",
    { class: "graph", viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": "dependency graph" },
    svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" }, svg("path", { d: "M0,0 L10,5 L0,10 z" }))),
    edges,
    boxes,
  );
}
