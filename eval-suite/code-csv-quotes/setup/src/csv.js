/** The fields of one CSV line. */
export function parseLine(line) {
  return line.split(",");
}

/** Every non-empty line's fields. */
export function parse(text) {
  return text.split("\n").filter((line) => line !== "").map(parseLine);
}
