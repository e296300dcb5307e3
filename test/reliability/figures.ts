import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";

/** Records one figure line (`reliability: …`) that `npm run test:reliability` prints at the end. */
export function recordFigure(suite: string, line: string): void {
  appendFileSync(join(inject("figuresDir"), `${suite}.txt`), `reliability: ${line}\n`);
}
