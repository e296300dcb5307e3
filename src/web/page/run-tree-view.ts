import { card, el } from "./dom.js";
import { nodeOf, type RunDetails, type RunNode } from "./run-view.js";

/** The runs of a log depth-first: each run after its parent, in order of their first event. */
export function runOrder(details: RunDetails): { node: RunNode; depth: number }[] {
  const known = new Set(details.runs.map((node) => node.runId));
  const children = new Map<string, RunNode[]>();
  const roots: RunNode[] = [];
  for (const node of details.runs) {
    const parent = node.parent?.runId;
    if (parent !== undefined && known.has(parent) && parent !== node.runId) children.set(parent, [...(children.get(parent) ?? []), node]);
    else roots.push(node);
  }
  const order: { node: RunNode; depth: number }[] = [];
  const visit = (node: RunNode, depth: number) => {
    order.push({ node, depth });
    for (const child of children.get(node.runId) ?? []) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  return order;
}

/** Which sub-agents and workers ran, under whom, and for which call or step. */
export function runTreeSection(details: RunDetails): HTMLElement | null {
  if (details.runs.length < 2) return null;
  const calls = (runId: string) => details.modelCalls.filter((c) => nodeOf(details, c.runId) === runId).length;
  const tools = (runId: string) => details.toolCalls.filter((c) => nodeOf(details, c.runId) === runId).length;
  return card(
    "run-tree",
    "Sub-agents and workers",
    el(
      "ul",
      { class: "tree" },
      runOrder(details).map(({ node, depth }) => {
        const item = el(
          "li",
          { "data-run": node.runId },
          depth > 0 ? "└ " : "",
          el("strong", { text: node.agent }),
          el("span", {
            class: "meta",
            text:
              (node.parent?.stepId !== undefined ? " · step " + node.parent.stepId : "") +
              (node.parent?.toolCallId !== undefined ? " · for call " + node.parent.toolCallId : "") +
              ` · ${calls(node.runId)} model call(s), ${tools(node.runId)} tool call(s)` +
              (node.resumed > 0 ? ` · went on ${node.resumed} time(s) after a stop` : "") +
              ` · run ${node.runId.slice(0, 8)}`,
          }),
        );
        // Through the style object, not a style attribute: the page's content security policy allows no inline styles.
        item.style.paddingLeft = `${depth * 1.2}rem`;
        return item;
      }),
    ),
  );
}
