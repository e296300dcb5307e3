import { el, formatMs, svg } from "./dom.js";
import { runOrder } from "./run-tree-view.js";
import { modelCallLabel, nodeOf, type RunDetails } from "./run-view.js";

/** One bar: a model call or a tool call, from its start to its end (or now, while it runs). */
export type TimelineBar = {
  kind: "model" | "tool";
  /** The row: the run's node in the tree of runs. */
  runId: string;
  /** The run id the call was logged under (a node has one per time it went on). */
  callRunId: string;
  label: string;
  start: number;
  end: number;
  startSeq: number;
  endSeq: number;
  running: boolean;
  /** Ended without a result: the run stopped, was killed, or paused in the middle of it. */
  interrupted: boolean;
  error: boolean;
  /** The model call's number, or the tool call's id. */
  n?: number;
  callId?: string;
};

export type TimelineActions = { openModelCall(n: number): void; openToolCall(callId: string, runId: string): void };

const LABEL_WIDTH = 150;
const PLOT_WIDTH = 760;
const LANE_HEIGHT = 16;
const ROW_GAP = 8;
const AXIS_HEIGHT = 20;

/**
 * Puts each bar in the first lane whose last bar had ended, in log order, before it started: calls that
 * ran at the same time (the compiler's parallel tasks, a turn's parallel tool calls) get lanes of their own.
 */
export function packLanes(bars: readonly TimelineBar[]): number[] {
  const laneEnds: number[] = [];
  const order = bars.map((_, i) => i).sort((a, b) => bars[a]!.startSeq - bars[b]!.startSeq);
  const lanes = new Array<number>(bars.length).fill(0);
  for (const i of order) {
    const bar = bars[i]!;
    let lane = laneEnds.findIndex((endSeq) => endSeq < bar.startSeq);
    if (lane === -1) lane = laneEnds.length;
    laneEnds[lane] = bar.running ? Number.POSITIVE_INFINITY : bar.endSeq;
    lanes[i] = lane;
  }
  return lanes;
}

function timelineBars(details: RunDetails): TimelineBar[] {
  const now = Math.max(0, ...details.modelCalls.map((c) => c.end ?? c.start), ...details.toolCalls.map((c) => c.end ?? c.start));
  const top = details.run.id;
  return [
    ...details.modelCalls.map((call): TimelineBar => ({
      kind: "model",
      runId: nodeOf(details, call.runId),
      callRunId: call.runId ?? top,
      label: `model call ${call.n} (${modelCallLabel(call)})`,
      start: call.start,
      end: call.end ?? now,
      startSeq: call.startSeq,
      endSeq: call.endSeq ?? Number.POSITIVE_INFINITY,
      running: call.end === undefined,
      interrupted: call.interrupted !== undefined,
      error: false,
      n: call.n,
    })),
    ...details.toolCalls.map((call): TimelineBar => ({
      kind: "tool",
      runId: nodeOf(details, call.runId),
      callRunId: call.runId ?? top,
      label: call.name,
      start: call.start,
      end: call.end ?? now,
      startSeq: call.startSeq,
      endSeq: call.endSeq ?? Number.POSITIVE_INFINITY,
      running: call.end === undefined,
      interrupted: call.interrupted !== undefined,
      error: call.result?.isError ?? false,
      callId: call.id,
    })),
  ];
}

/** Model and tool calls on one time axis, a row per run (sub-agents and workers indented under theirs). */
export function timelineSection(details: RunDetails, actions: TimelineActions): HTMLElement | null {
  const bars = timelineBars(details);
  if (bars.length === 0) return null;
  const t0 = Math.min(...bars.map((bar) => bar.start));
  const span = Math.max(1, Math.max(...bars.map((bar) => bar.end)) - t0);
  const scale = PLOT_WIDTH / span;
  const nodes: SVGElement[] = [];
  let y = AXIS_HEIGHT;
  for (const { node, depth } of runOrder(details)) {
    const own = bars.filter((bar) => bar.runId === node.runId);
    if (own.length === 0) continue;
    const lanes = packLanes(own);
    const laneCount = Math.max(...lanes) + 1;
    const label = svg("text", { x: 4 + depth * 12, y: y + 12, class: "row-label" }, node.agent);
    nodes.push(svg("g", { "data-run": node.runId }, label, svg("title", {}, node.agent + " · run " + node.runId)));
    own.forEach((bar, i) => {
      const x = LABEL_WIDTH + (bar.start - t0) * scale;
      const width = Math.max(2, (bar.end - bar.start) * scale);
      const rect = svg(
        "rect",
        {
          class: `bar ${bar.kind}${bar.error ? " error" : ""}${bar.running ? " running" : ""}${bar.interrupted ? " interrupted" : ""}`,
          "data-kind": bar.kind,
          "data-name": bar.kind === "tool" ? bar.label : "model",
          ...(bar.n !== undefined ? { "data-n": bar.n } : {}),
          ...(bar.callId !== undefined ? { "data-call": bar.callId } : {}),
          x: x.toFixed(1),
          y: y + lanes[i]! * LANE_HEIGHT + 2,
          width: width.toFixed(1),
          height: LANE_HEIGHT - 4,
          rx: 2,
          tabindex: 0,
          role: "button",
        },
        svg("title", {}, `${bar.label}: ${formatMs(bar.end - bar.start)}${bar.running ? " so far" : bar.interrupted ? ", then interrupted" : ""}`),
      );
      const open = () => (bar.n !== undefined ? actions.openModelCall(bar.n) : actions.openToolCall(bar.callId!, bar.callRunId));
      rect.addEventListener("click", open);
      rect.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") open();
      });
      nodes.push(rect);
    });
    y += laneCount * LANE_HEIGHT + ROW_GAP;
  }
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((share) =>
    svg("g", { class: "tick" }, svg("line", { x1: LABEL_WIDTH + share * PLOT_WIDTH, x2: LABEL_WIDTH + share * PLOT_WIDTH, y1: AXIS_HEIGHT - 4, y2: y }), svg("text", { x: LABEL_WIDTH + share * PLOT_WIDTH, y: 12, "text-anchor": share === 1 ? "end" : share === 0 ? "start" : "middle" }, formatMs(share * span))),
  );
  const width = LABEL_WIDTH + PLOT_WIDTH + 4;
  return el(
    "div",
    { class: "card", id: "timeline" },
    el("h2", {}, "Timeline ", el("span", { class: "meta", text: "model calls and tool calls; parallel calls stack. Click a bar to open it." })),
    el(
      "div",
      { class: "legend" },
      ...[
        ["model", "model call"],
        ["tool", "tool call"],
        ["error", "failed"],
        ["running", "still running"],
        ["interrupted", "interrupted (no result: the run stopped, was killed or paused)"],
      ].map(([key, text]) => el("span", { "data-key": key }, el("span", { class: "key " + key }), " " + text + " ")),
    ),
    svg("svg", { class: "timeline", viewBox: `0 0 ${width} ${y}`, width, height: y, role: "img", "aria-label": "timeline of model and tool calls" }, ticks, nodes),
  );
}
