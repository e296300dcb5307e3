// ReWOO's evidence variables: "#E1", "#E2", … name the results of earlier plan steps.
import { collectStrings, mapStrings } from "../json-strings.js";

const VARIABLE = /#E\d+/g;

/**
 * Replaces each variable by its evidence, matching whole tokens: "#E10" is looked up as "#E10", never
 * as "#E1" followed by "0" (the reference substituted with plain string replacement and corrupted it).
 * Strings inside arrays and objects are substituted too; unknown variables are left as written.
 */
export function substituteEvidence<T>(value: T, evidence: ReadonlyMap<string, string>): T {
  return mapStrings(value, (text) => text.replace(VARIABLE, (name) => evidence.get(name) ?? name));
}

/** Every variable a value mentions, in order of first appearance. */
export function referencedVariables(value: unknown): string[] {
  return [...new Set(collectStrings(value).flatMap((text) => text.match(VARIABLE) ?? []))];
}
