import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    figuresDir: string;
  }
}

/**
 * Each suite records its figures in a shared folder (workers are separate processes); once every
 * suite has run, the figures are printed here, one line each, in the order the suites recorded them.
 */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-figures-"));
  project.provide("figuresDir", dir);
  return () => {
    const lines = readdirSync(dir)
      .sort()
      .flatMap((file) => readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean));
    console.log(["", "== reliability figures", ...lines, ""].join("\n"));
    rmSync(dir, { recursive: true, force: true });
  };
}
