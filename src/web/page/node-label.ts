/** Longest argument value shown in a readable label. */
const VALUE_CHARS = 28;

/**
 * A step label a person can read at a glance: a tool step written as `name({"json": …})` (the
 * compiler's and ReWOO's plans) becomes `name: value, value`, its argument values without the
 * JSON around them; any other label is kept. Labels cut short mid-JSON still read.
 */
export function readableLabel(label: string): string {
  const call = /^([A-Za-z_][\w.-]*)\s*\((.*?)\)?$/s.exec(label.trim());
  if (!call) return label;
  const [, name, args = ""] = call;
  const values = argumentValues(args.replace(/…$/, ""));
  if (values === undefined) return label;
  return values.length === 0 ? `${name}` : `${name}: ${values.map(shorten).join(", ")}`;
}

function argumentValues(text: string): string[] | undefined {
  if (text.trim() === "") return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return Object.values(parsed).map(valueText);
  } catch {
    // Cut short: read the pairs that are there.
  }
  if (!text.trimStart().startsWith("{")) return undefined;
  return [...text.matchAll(/"[^"\\]*"\s*:\s*("(?:[^"\\]|\\.)*"?|-?\d[\d.eE+-]*|true|false|null)/g)].map((pair) => {
    const raw = pair[1] ?? "";
    return raw.startsWith('"') ? raw.replace(/^"|"$/g, "").replace(/\\n/g, " ").replace(/\\(.)/g, "$1") : raw;
  });
}

function valueText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function shorten(value: string): string {
  const flat = value.replace(/\s+/g, " ").trim();
  return flat.length > VALUE_CHARS ? flat.slice(0, VALUE_CHARS - 1) + "…" : flat;
}

/** Up to `lines` lines of at most `width` characters, broken between words; what does not fit ends in "…". */
export function wrapLabel(text: string, width: number, lines: number): string[] {
  const out: string[] = [];
  let rest = text.replace(/\s+/g, " ").trim();
  while (rest.length > 0 && out.length < lines) {
    if (rest.length <= width) {
      out.push(rest);
      rest = "";
      break;
    }
    const space = rest.lastIndexOf(" ", width);
    const cut = space > width / 2 ? space : width;
    out.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0) {
    const joined = `${out[out.length - 1] ?? ""} ${rest}`;
    const space = joined.lastIndexOf(" ", width - 1);
    out[out.length - 1] = joined.slice(0, space > width / 2 ? space : width - 1).trimEnd() + "…";
  }
  return out;
}
