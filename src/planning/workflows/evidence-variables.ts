// ReWOO's evidence variables: "#E1", "#E2", … name the results of earlier plan steps.

const VARIABLE = /#E\d+/g;

/**
 * Replaces each variable by its evidence, matching whole tokens: "#E10" is looked up as "#E10", never
 * as "#E1" followed by "0" (the reference substituted with plain string replacement and corrupted it).
 * Strings inside arrays and objects are substituted too; unknown variables are left as written.
 */
export function substituteEvidence<T>(value: T, evidence: ReadonlyMap<string, string>): T {
  if (typeof value === "string") return value.replace(VARIABLE, (name) => evidence.get(name) ?? name) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => substituteEvidence(item, evidence)) as T;
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteEvidence(item, evidence)])) as T;
  }
  return value;
}

/** Every variable a value mentions, in order of first appearance. */
export function referencedVariables(value: unknown): string[] {
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node === "string") for (const match of node.matchAll(VARIABLE)) found.add(match[0]);
    else if (Array.isArray(node)) node.forEach(visit);
    else if (typeof node === "object" && node !== null) Object.values(node).forEach(visit);
  };
  visit(value);
  return [...found];
}
