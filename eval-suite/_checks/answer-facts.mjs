// Shared by the built-in research tasks' checks: the final answer must state each known fact.
import { readFileSync } from "node:fs";

/** `facts` are [name, pattern] pairs (case-insensitive regular expressions). Exits 1 naming the facts the answer misses. */
export function checkAnswerFacts(answerFile, facts) {
  const answer = readFileSync(answerFile, "utf8");
  const missing = facts.filter(([, pattern]) => !new RegExp(pattern, "i").test(answer)).map(([name]) => name);
  if (missing.length > 0) {
    console.log(`the answer misses: ${missing.join("; ")}`);
    process.exit(1);
  }
  console.log("the answer states every known fact");
}
