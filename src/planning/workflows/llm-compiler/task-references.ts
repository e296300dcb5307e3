// The LLM compiler's references to earlier task results: "$3" or "${3}" inside a task's arguments.
import { collectStrings, mapStrings } from "../json-strings.js";

// Greedy digits make "$10" one reference, never "$1" followed by "0".
const REFERENCE = /\$\{(\d+)\}|\$(\d+)/g;

/** Replaces each reference by that task's result text; references without a result stay as written. */
export function substituteTaskResults<T>(value: T, results: ReadonlyMap<number, string>): T {
  return mapStrings(value, (text) =>
    text.replace(REFERENCE, (whole, braced: string | undefined, bare: string | undefined) => results.get(Number(braced ?? bare)) ?? whole),
  );
}

/** The task numbers a value refers to, in order of first appearance. */
export function referencedTasks(value: unknown): number[] {
  const ids = collectStrings(value).flatMap((text) => [...text.matchAll(REFERENCE)].map((m) => Number(m[1] ?? m[2])));
  return [...new Set(ids)];
}
