import { parse } from "./csv.js";

/** Sum of a numeric column, by header name. */
export function columnSum(text, column) {
  const [header, ...rows] = parse(text);
  const index = header.indexOf(column);
  if (index < 0) throw new Error(`no column ${column}`);
  return rows.reduce((sum, row) => sum + Number(row[index]), 0);
}
