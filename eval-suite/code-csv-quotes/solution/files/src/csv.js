/** The fields of one CSV line: commas separate, double quotes wrap, "" inside quotes is one quote. */
export function parseLine(line) {
  const fields = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      fields.push(field);
      field = "";
    } else field += ch;
  }
  fields.push(field);
  return fields;
}

/** Every non-empty line's fields; lines end with \n or \r\n. */
export function parse(text) {
  return text.split(/\r?\n/).filter((line) => line !== "").map(parseLine);
}
