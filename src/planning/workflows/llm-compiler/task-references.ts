// The LLM compiler's references to earlier task results inside a task's string arguments, and how
// a dollar sign stays text. Prices and amounts are common in arguments, so a bare "$n" only counts
// where it can mean nothing else:
//   ${3}  always a reference to task 3;
//   $3    a reference when it is the whole argument, or when 3 is a task above this one (numbered
//         before it) and "$3" stands alone ("$3.50", "$3,000", "US$3" and "$3rd" are text);
//   $$    one literal "$", anywhere ("$$2 off" when task 2 exists).
// Everything else with a "$" ("laptops under $500" in a three-task plan) is text, as written. The
// rule is the same for every plan form (task lines, a whole JSON plan, native tool calls): "above"
// is by number, which the parser and the substitution can both tell from the task alone, so a
// dependency listed in any order never turns a price into a reference.
import { collectStrings, mapStrings } from "../json-strings.js";

// Greedy digits make "$10" one reference, never "$1" followed by "0".
const TOKEN = /\$\$|\$\{(\d+)\}|(?<!\w)\$(\d+)(?!\w|[.,]\d)/g;
const WHOLE = /^\s*\$(\d+)\s*$/;

/** Whether task `id` is one this task may use: for a bare "$n" embedded in text, that decides. */
type IsTaskAbove = (id: number) => boolean;

/** A bare "$n" in the text of task `taskId` names task n when n is numbered before it and is a task. */
function above(taskId: number, isTask: (id: number) => boolean): IsTaskAbove {
  return (id) => id < taskId && isTask(id);
}

/** Rewrites `text`: each reference by `resolve(id, asWritten)`, each "$$" by "$"; the rest as written. */
function rewrite(text: string, isTaskAbove: IsTaskAbove, resolve: (id: number, written: string) => string): string {
  const whole = WHOLE.exec(text);
  if (whole) return resolve(Number(whole[1]), text);
  return text.replace(TOKEN, (token, braced: string | undefined, bare: string | undefined) => {
    if (braced !== undefined) return resolve(Number(braced), token);
    if (bare !== undefined) return isTaskAbove(Number(bare)) ? resolve(Number(bare), token) : token;
    return "$";
  });
}

/**
 * The task numbers the arguments of task `taskId` refer to, in order of first appearance; `isTask`
 * knows the tasks of the plan (and of earlier rounds). A "${n}" or a whole-argument "$n" counts
 * whatever n is, so a wrong number is reported rather than sent as text.
 */
export function referencedTasks(value: unknown, taskId: number, isTask: (id: number) => boolean): number[] {
  const ids: number[] = [];
  for (const text of collectStrings(value)) {
    rewrite(text, above(taskId, isTask), (id) => {
      ids.push(id);
      return "";
    });
  }
  return [...new Set(ids)];
}

/**
 * The value task `taskId`'s tool receives: references to the tasks in `results` replaced by their
 * results, "$$" by "$". `results` holds exactly the tasks this one depends on: the ones
 * `referencedTasks` found, plus any listed as dependencies. A listed dependency numbered before the
 * task would have been found in its text too, and one numbered after it is not a bare "$n" for
 * either, so both read the arguments alike.
 */
export function substituteTaskResults<T>(value: T, taskId: number, results: ReadonlyMap<number, string>): T {
  return mapStrings(value, (text) => rewrite(text, above(taskId, (id) => results.has(id)), (id, written) => results.get(id) ?? written));
}
