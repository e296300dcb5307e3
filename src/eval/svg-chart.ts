/** A chart (a benchmark's `--plot`, the eval's report): named series of points, drawn as lines or as dots. */
export type Chart = {
  /** The file name in the plot folder, without extension. */
  name: string;
  title: string;
  xLabel: string;
  yLabel: string;
  kind: "line" | "scatter";
  /** `ranges[i]`, when given, is a whisker from low to high y through point i (a confidence interval). */
  series: { name: string; points: [number, number][]; ranges?: [number, number][] }[];
  /** The y axis spans at least this range (a rate's 0 to 100), whatever the points. */
  yRange?: [number, number];
  /** Draw y = x, for "what we got against the lower bound" charts. */
  diagonal?: boolean;
  /**
   * Scatter charts with a point or two per series (the eval's strategies): name each point beside it,
   * and spread points that would cover each other side by side, so none hides another.
   */
  labelPoints?: boolean;
};

/** Points closer than this (px) would cover each other: they are drawn side by side. */
const OVERLAP_PX = 9;
/** How far apart side-by-side points are drawn (px). */
const SPREAD_PX = 11;
const LABEL_LINE_PX = 13;

const PLOT_WIDTH = 624;
const HEIGHT = 400;
const MARGIN = { left: 72, top: 40, bottom: 56 };
/** Width of one character of the legend's 12px sans-serif text, generously: names must never be cut. */
const LEGEND_CHAR_WIDTH = 7.5;
const COLORS = ["#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#57606a", "#bf3989", "#0a7ea4"];

/** The chart as a self-contained SVG document: axes with round ticks, one colour per series, a legend. */
export function renderChart(chart: Chart): string {
  const points = chart.series.flatMap((s) => s.points);
  if (points.length === 0) throw new Error(`chart "${chart.name}" has no points`);
  const xs = points.map(([x]) => x);
  const ys = [...points.map(([, y]) => y), ...chart.series.flatMap((s) => (s.ranges ?? []).flat())];
  const xTicks = ticks(Math.min(0, ...xs), Math.max(...xs, ...(chart.diagonal ? ys : [])));
  const yTicks = ticks(Math.min(0, ...ys, ...(chart.yRange ?? [])), Math.max(...ys, ...(chart.diagonal ? xs : []), ...(chart.yRange ?? [])));
  const [x0, x1] = [xTicks[0] as number, xTicks.at(-1) as number];
  const [y0, y1] = [yTicks[0] as number, yTicks.at(-1) as number];
  // The legend sits in the right margin, beside the plot, so it never covers a point; the margin fits its longest name.
  const legendWidth = 48 + LEGEND_CHAR_WIDTH * Math.max(...chart.series.map((s) => s.name.length));
  const plotW = PLOT_WIDTH;
  const WIDTH = Math.ceil(MARGIN.left + plotW + legendWidth);
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (x: number) => MARGIN.left + ((x - x0) / (x1 - x0)) * plotW;
  const py = (y: number) => MARGIN.top + plotH - ((y - y0) / (y1 - y0)) * plotH;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escape(chart.title)}</text>`,
  ];
  for (const tick of xTicks) {
    parts.push(`<line x1="${px(tick)}" y1="${MARGIN.top}" x2="${px(tick)}" y2="${MARGIN.top + plotH}" stroke="#eaeef2"/>`);
    parts.push(`<text x="${px(tick)}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${label(tick)}</text>`);
  }
  for (const tick of yTicks) {
    parts.push(`<line x1="${MARGIN.left}" y1="${py(tick)}" x2="${MARGIN.left + plotW}" y2="${py(tick)}" stroke="#eaeef2"/>`);
    parts.push(`<text x="${MARGIN.left - 8}" y="${py(tick) + 4}" text-anchor="end">${label(tick)}</text>`);
  }
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#57606a"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 14}" text-anchor="middle">${escape(chart.xLabel)}</text>`,
    `<text transform="translate(18 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escape(chart.yLabel)}</text>`,
  );
  if (chart.diagonal) {
    const end = Math.min(x1, y1);
    parts.push(`<line x1="${px(0)}" y1="${py(0)}" x2="${px(end)}" y2="${py(end)}" stroke="#8c959f" stroke-dasharray="4 4"/>`);
  }
  const placed = chart.labelPoints ? placeLabelledPoints(chart.series, px, py) : new Map<string, PlacedPoint>();
  chart.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length] as string;
    // A range's whisker, from low to high y, at pixel column `cx`.
    const whisker = (cx: string, range: [number, number] | undefined) => {
      if (!range) return;
      const [low, high] = [py(range[0]).toFixed(1), py(range[1]).toFixed(1)];
      parts.push(`<path d="M${cx} ${low}V${high}M${Number(cx) - 5} ${low}h10M${Number(cx) - 5} ${high}h10" stroke="${color}" fill="none"/>`);
    };
    if (chart.kind === "line") {
      const path = series.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
      parts.push(`<polyline points="${path}" fill="none" stroke="${color}" stroke-width="1.5"/>`);
      series.points.forEach(([x], j) => whisker(px(x).toFixed(1), series.ranges?.[j]));
    } else {
      series.points.forEach(([x, y], j) => {
        const at = placed.get(`${i}/${j}`);
        const cx = (at?.x ?? px(x)).toFixed(1);
        whisker(cx, series.ranges?.[j]);
        if (!at) return void parts.push(`<circle cx="${cx}" cy="${py(y).toFixed(1)}" r="4" fill="${color}"/>`);
        const name = escape(series.name);
        parts.push(
          `<circle cx="${cx}" cy="${py(y).toFixed(1)}" r="4" fill="${color}" data-series="${name}"><title>${name}: (${label(x)}, ${label(y)})</title></circle>`,
          `<text x="${at.labelX.toFixed(1)}" y="${at.labelY.toFixed(1)}" fill="${color}" data-label="${name}">${name}</text>`,
        );
      });
    }
    const ly = MARGIN.top + 14 + i * 18;
    parts.push(
      `<rect x="${MARGIN.left + plotW + 14}" y="${ly - 9}" width="12" height="12" fill="${color}"/>`,
      `<text x="${MARGIN.left + plotW + 32}" y="${ly + 1}">${escape(series.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

type PlacedPoint = { x: number; labelX: number; labelY: number };

/**
 * Where each point (by `series/point`) and its label go: points that would cover each other form a
 * group, drawn side by side around their place, with their labels stacked to the right of the group.
 */
function placeLabelledPoints(series: Chart["series"], px: (x: number) => number, py: (y: number) => number): Map<string, PlacedPoint> {
  const groups: { x: number; y: number; keys: string[] }[] = [];
  series.forEach((s, i) =>
    s.points.forEach(([x, y], j) => {
      const [cx, cy] = [px(x), py(y)];
      const group = groups.find((g) => Math.hypot(g.x - cx, g.y - cy) < OVERLAP_PX);
      if (group) group.keys.push(`${i}/${j}`);
      else groups.push({ x: cx, y: cy, keys: [`${i}/${j}`] });
    }),
  );
  const placed = new Map<string, PlacedPoint>();
  for (const group of groups) {
    const n = group.keys.length;
    const right = group.x + ((n - 1) / 2) * SPREAD_PX + 8;
    group.keys.forEach((key, k) => {
      placed.set(key, { x: group.x + (k - (n - 1) / 2) * SPREAD_PX, labelX: right, labelY: group.y + 4 + (k - (n - 1) / 2) * LABEL_LINE_PX });
    });
  }
  return placed;
}

/** Round tick values covering [low, high]: steps of 1, 2 or 5 times a power of ten, about six of them. */
function ticks(low: number, high: number): number[] {
  const span = high > low ? high - low : Math.abs(high) || 1;
  const raw = span / 6;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const first = Math.floor(low / step) * step;
  const result: number[] = [];
  for (let value = first; value < high + step; value += step) {
    result.push(Number(value.toPrecision(12)));
    if (value >= high) break;
  }
  return result.length > 1 ? result : [first, first + step];
}

function label(value: number): string {
  if (Math.abs(value) >= 1000) return `${Number((value / 1000).toPrecision(4))}k`;
  return String(Number(value.toPrecision(4)));
}

function escape(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
