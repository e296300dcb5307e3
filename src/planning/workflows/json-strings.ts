/** Applies `change` to every string inside a JSON-like value (arrays and plain objects walked), keeping its shape. */
export function mapStrings<T>(value: T, change: (text: string) => string): T {
  if (typeof value === "string") return change(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, change)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, change)])) as T;
  }
  return value;
}

/** Every string inside a JSON-like value, depth first. */
export function collectStrings(value: unknown): string[] {
  const found: string[] = [];
  mapStrings(value, (text) => {
    found.push(text);
    return text;
  });
  return found;
}
