import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { readTrialRecords } from "./trial-record.js";

it("a results.jsonl written before step-limit was named max-steps reads its trials as max-steps", () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-eval-records-"));
  try {
    const file = join(dir, "results.jsonl");
    const record = { scripted: true, model: "m", strategy: "todos", task: "a", trial: 1, runId: null, reason: "stopped", steps: 40 };
    writeFileSync(file, `${JSON.stringify({ ...record, outcome: "step-limit" })}\n${JSON.stringify({ ...record, trial: 2, outcome: "passed" })}\n`);
    expect(readTrialRecords(file).map((r) => r.outcome)).toEqual(["max-steps", "passed"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
