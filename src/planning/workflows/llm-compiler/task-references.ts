// The LLM compiler's references to earlier task results inside a task's string arguments, and how
// a dollar sign stays text. Prices and amounts are common in arguments, so a bare "$n" only counts
// where it can mean nothing else:
//   ${3}  always a reference to task 3;
//   $3    a reference when it is the whole argument, or when 3 is a task above this one and "$3"
//         stands alone ("$3.50", "$3,000", "US$3" and "$3rd" are text);
//   $$    one literal "$", anywhere ("$$2 off" when task 2 exists).
// Everything else with a "$" ("laptops under $500" in a three-task plan) is text, as written.
import { collectStrings, mapStrings } from "../json-strings.js";

// Greedy digits make "$10" one reference, never "$1" followed by "0".
const TOKEN = /\$\$|\$\{(\d+)\}|(?<!\w)\$(\d+)(?!\w|[.,]\d)/g;
const WHOLE = /^\s*\$(\d+)\s*$/;

/** Whether task `id` is one this task may use: for a bare "$n" embedded in text, that decides. */
export type IsTaskAbove = (id: number) => boolean;

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
 * The task numbers a value refers to, in order of first appearance. A "${n}" or a whole-argument
 * "$n" counts whatever n is, so a wrong number is reported rather than sent as text.
 */
export function referencedTasks(value: unknown, isTaskAbove: IsTaskAbove): number[] {
  const ids: number[] = [];
  for (const text of collectStrings(value)) {
    rewrite(text, isTaskAbove, (id) => {
      ids.push(id);
      return "";
    });
  }
  return [...new Set(ids)];
}

/**
 * The value the tool receives: references to the tasks in `results` replaced by their result text,
 * "$$" by "$". `results` holds exactly the tasks this one depends on, which are the ones
 * `referencedTasks` found (plus any listed as dependencies, all tasks above), so both read alike.
 */
export function substituteTaskResults<T>(value: T, results: ReadonlyMap<number, string>): T {
  return mapStrings(value, (text) => rewrite(text, (id) => results.has(id), (id, written) => results.get(id) ?? written));
}
