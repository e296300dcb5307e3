// Regression: a plan-and-execute run killed right after a step's write returned, while the step's
// executor waited on its next model call, reran the whole step on --resume and wrote again (3 times
// out of 3). A step's executor now goes on from its own last checkpoint: its finished calls stay done.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { built, driverProcesses } from "./run-process-harness.js";

// Built code only: what a user's processes would run. SQLite, no server.
const { openRuns } = built;
const spawnRun = driverProcesses();

const appended = (log: string) => readFileSync(log, "utf8").split("\n").filter(Boolean);

it("plan-and-execute killed with kill -9 after a step's write, its next model call in flight: --resume never writes again", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-step-kill-"));
  const store = join(dir, "runs.db");
  const log = join(dir, "calls.log");
  const a = spawnRun(["start", store, log, "0"], { RUN_STRATEGY: "plan-execute", HOLD_MODEL_AT: "2" });
  const runId = (await a.line(/^run /)).slice(4);
  // The write is recorded as finished, and the executor's next model call has started (and waits).
  await a.lineAfter(/^event \d+ tool-end$/, /^event \d+ model-start$/);
  await a.line(/^thinking 2$/);
  a.child.kill("SIGKILL");
  await a.exited;
  expect(appended(log)).toEqual(["1"]);

  const b = spawnRun(["resume", store, log, "0", runId]);
  expect(await b.line(/^outcome /)).toBe("outcome final");
  expect(appended(log)).toEqual(["1", "2", "3", "4", "5"]);

  const runs = openRuns({ store });
  try {
    expect(await runs.get(runId)).toMatchObject({ status: "final", answer: "appended 5" });
    // The executor resumed in the second process (a run of its own) started from the finished call and its result.
    const firstRequests = new Map<string, string[]>();
    for await (const { event } of runs.events(runId)) {
      if (event.type !== "model-start" || event.agent !== "step-1" || !event.request || firstRequests.has(event.runId ?? "")) continue;
      firstRequests.set(event.runId ?? "", event.request.added.map((m) => `${m.role}:${m.content}`));
    }
    const [started, resumed] = [...firstRequests.values()];
    expect(started).not.toContain("tool:appended 1");
    expect(resumed).toContain("tool:appended 1");
  } finally {
    await runs.close();
  }
}, 60_000);
