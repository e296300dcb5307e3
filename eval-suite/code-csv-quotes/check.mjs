// node check.mjs <workspace> <answer-file>: exit 0 when the CSV module follows CSV-RULES.md.
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const ws = process.argv[2];
const { parseLine, parse } = await import(pathToFileURL(join(ws, "src", "csv.js")).href);
const { columnSum } = await import(pathToFileURL(join(ws, "src", "summary.js")).href);
assert.deepEqual(parseLine("a,b,c"), ["a", "b", "c"], "plain fields");
assert.deepEqual(parseLine('"Smith, Jo",42'), ["Smith, Jo", "42"], "a quoted field may hold commas");
assert.deepEqual(parseLine('"say ""hi""",x'), ['say "hi"', "x"], 'a doubled quote inside quotes is one quote');
assert.deepEqual(parseLine(" a ,,b"), [" a ", "", "b"], "unquoted fields keep their spaces; empty fields stay");
assert.deepEqual(parseLine('""'), [""], "an empty quoted field");
assert.deepEqual(parse('h1,h2\r\n"x,y",2\r\n\r\nz,3\n'), [["h1", "h2"], ["x,y", "2"], ["z", "3"]], "parse: CRLF, empty lines skipped");
assert.equal(columnSum('name,amount\n"Lee, A",5\nKim,7\n', "amount"), 12, "summary.js columnSum broke");
console.log("CSV rules followed");
