// node check.mjs <workspace> <answer-file>: exit 0 when the final answer states the known facts.
import { checkAnswerFacts } from "../_checks/answer-facts.mjs";

checkAnswerFacts(process.argv[3], [["the default (400)", "\\b400\\b"], ["the release (2.2.1)", "2\\.2\\.1"]]);
