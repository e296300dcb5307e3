// stepwise/eval: measure whether planning helps, on your model and tasks.
export { runEval, EVAL_STRATEGIES } from "./run-eval.js";
export type { EvalOptions, EvalResult } from "./run-eval.js";
export { loadSuite, loadTask, BUILTIN_SUITE, EvalTaskError, TASK_TOOLS } from "./eval-task.js";
export type { EvalTask, TaskToolName } from "./eval-task.js";
export { runCheck } from "./task-check.js";
export type { CheckResult } from "./task-check.js";
export { summarize, wilsonInterval } from "./scoring.js";
export type { StrategySummary } from "./scoring.js";
export { TRIAL_OUTCOMES, MACHINE_FAILURE, readTrialRecords } from "./trial-record.js";
export type { TrialRecord, TrialOutcome } from "./trial-record.js";
export { summaryTable } from "./summary-table.js";
export { renderHtmlReport } from "./html-report.js";
export { corpusTools } from "./corpus-tools.js";
export { SCRIPTED_DEMO } from "./scripted-brains.js";
export { SCRIPTED_NOTICE } from "./eval-figures.js";
