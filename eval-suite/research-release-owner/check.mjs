// node check.mjs <workspace> <answer-file>: exit 0 when the final answer states the known facts.
import { checkAnswerFacts } from "../_checks/answer-facts.mjs";

checkAnswerFacts(process.argv[3], [["the release (2.1)", "\\b2\\.1\\b"], ["the lead (Mei Lin)", "Mei Lin"]]);
