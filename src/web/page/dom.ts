/** Small helpers to build the page's DOM and SVG without a framework. */
import { tokenHeaders } from "./viewer-token.js";

type Child = Node | string | null | undefined | false | readonly Child[];
type Props = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

const SVG_NS = "http://www.w3.org/2000/svg";

function append(node: Element, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child as Node | string);
  }
}

/** An HTML element: `on…` props are listeners, `text` its text, other props attributes (false/null/undefined left out). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

/** An SVG element; a string child becomes its text. */
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: Child[]): SVGElement {
  const node = document.createElementNS(SVG_NS, tag) as SVGElement;
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  append(node, children);
  return node;
}

/** The viewer answered, with an error status and its reason. */
export class HttpError extends Error {}

export async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { accept: "application/json", ...tokenHeaders() } });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new HttpError(body.error ?? response.statusText);
  }
  return (await response.json()) as T;
}

/** `/runs/<id>` and below, the id escaped. */
export function runPath(runId: string, rest = ""): string {
  return "/runs/" + encodeURIComponent(runId) + rest;
}

export function badge(status: string): HTMLElement {
  return el("span", { class: "badge " + status, "data-run-status": status, text: status.replace("-", " ") });
}

export function card(id: string, title: Child, ...children: Child[]): HTMLElement {
  return el("div", { class: "card", id }, el("h2", {}, title), ...children);
}

export function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

export function formatTokens(count: number): string {
  return count.toLocaleString("en-US");
}

/** A cost estimate, labelled as one. */
export function formatCost(usd: number): string {
  return "≈ $" + (usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2));
}

export function formatMs(ms: number): string {
  return ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(ms < 10_000 ? 2 : 1) + " s";
}
