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
};

const WIDTH = 720;
const HEIGHT = 400;
const MARGIN = { left: 72, right: 24, top: 40, bottom: 56 };
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
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
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
  chart.series.forEach((series, i) => {
    const color = COLORS[i % COLORS.length] as string;
    if (chart.kind === "line") {
      const path = series.points.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(" ");
      parts.push(`<polyline points="${path}" fill="none" stroke="${color}" stroke-width="1.5"/>`);
    } else {
      series.points.forEach(([x, y], j) => {
        const range = series.ranges?.[j];
        if (range) {
          const [cx, low, high] = [px(x).toFixed(1), py(range[0]).toFixed(1), py(range[1]).toFixed(1)];
          parts.push(`<path d="M${cx} ${low}V${high}M${Number(cx) - 5} ${low}h10M${Number(cx) - 5} ${high}h10" stroke="${color}" fill="none"/>`);
        }
        parts.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="4" fill="${color}"/>`);
      });
    }
    const ly = MARGIN.top + 14 + i * 18;
    parts.push(
      `<rect x="${MARGIN.left + 12}" y="${ly - 9}" width="12" height="12" fill="${color}"/>`,
      `<text x="${MARGIN.left + 30}" y="${ly + 1}">${escape(series.name)}</text>`,
    );
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
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
