// Module hooks for observe.mjs: every URL an ES import resolves to is appended to the file given.
import { appendFileSync } from "node:fs";

let log;

export function initialize(data) {
  log = data.log;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(log, `${resolved.url}\n`);
  return resolved;
}
