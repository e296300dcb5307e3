// node check.mjs <workspace> <answer-file>: exit 0 when every expected output file matches solution/files/.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ws = process.argv[2];
const norm = (text) => text.replace(/\r\n/g, "\n").replace(/\n+$/, "");
for (const path of ["out/order_lines.csv", "out/summary.json"]) {
  const got = join(ws, path);
  if (!existsSync(got)) {
    console.log(`${path} was not written`);
    process.exit(1);
  }
  const want = norm(readFileSync(join("solution", "files", path), "utf8")).split("\n");
  const have = norm(readFileSync(got, "utf8")).split("\n");
  const at = want.findIndex((line, i) => line !== have[i]);
  if (at >= 0 || have.length !== want.length) {
    const line = at >= 0 ? at : want.length;
    console.log(`${path} line ${line + 1} is ${JSON.stringify(have[line] ?? "(missing)")}, expected ${JSON.stringify(want[line] ?? "(no more lines)")}`);
    process.exit(1);
  }
}
console.log("output files match");
