// node check.mjs <workspace> <answer-file>: exit 0 when the final answer states the known facts.
import { checkAnswerFacts } from "../_checks/answer-facts.mjs";

checkAnswerFacts(process.argv[3], [["the count (3)", "\\b3\\b|\\bthree\\b"], ["INC-2402", "INC-2402"], ["INC-2411", "INC-2411"], ["INC-2421", "INC-2421"]]);
