// node check.mjs <workspace> <answer-file>: exit 0 when the final answer states the known facts.
import { readFileSync } from "node:fs";

const answer = readFileSync(process.argv[3], "utf8");
const facts = [["the default (400)", "\\b400\\b"], ["the release (2.2.1)", "2\\.2\\.1"]];
const missing = facts.filter(([, pattern]) => !new RegExp(pattern, "i").test(answer)).map(([name]) => name);

if (missing.length > 0) {
  console.log(`the answer misses: ${missing.join("; ")}`);
  process.exit(1);
}
console.log("the answer states every known fact");
