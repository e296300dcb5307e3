import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { built, driverProcesses } from "./run-process-harness.js";

// Built code only: what a user's processes would run. SQLite, no server.
const { openRuns } = built;
const spawnRun = driverProcesses();

/**
 * Starts a run that pauses on its first write, then approves it in a second process, which is
 * killed inside the approved call, before its result is recorded. Returns the run and where it lives.
 */
async function killInsideApprovedCall(env: NodeJS.ProcessEnv): Promise<{ store: string; log: string; runId: string }> {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-approved-kill-"));
  const store = join(dir, "runs.db");
  const log = join(dir, "calls.log");
  const a = spawnRun(["start", store, log, "0"], env);
  const runId = (await a.line(/^run /)).slice(4);
  expect(await a.line(/^outcome /)).toBe("outcome awaiting-user");

  const b = spawnRun(["resume", store, log, "1", runId], { APPROVE_PENDING: "1" });
  await b.line(/^holding 1$/);
  b.child.kill("SIGKILL");
  await b.exited;
  return { store, log, runId };
}

const appended = (log: string) => readFileSync(log, "utf8").split("\n").filter(Boolean);

it("a run killed while an approved call runs never asks for it again nor makes it twice: it is answered as interrupted", async () => {
  const { store, log, runId } = await killInsideApprovedCall({ RUN_APPROVAL: "writes" });
  expect(appended(log)).toEqual(["1"]);

  const c = spawnRun(["resume", store, log, "0", runId]);
  // The run goes on to the next write, which waits for the user as the first one did.
  expect(await c.line(/^outcome /)).toBe("outcome awaiting-user");
  expect(appended(log)).toEqual(["1"]);
  const runs = openRuns({ store });
  try {
    let waiting: string[] = [];
    for await (const { event } of runs.events(runId)) if (event.type === "approval-requested") waiting = event.calls.map((call) => call.arguments);
    expect(waiting).toEqual([JSON.stringify({ n: 2 })]);
    expect(await runs.get(runId)).toMatchObject({ status: "awaiting-user" });
    // What the model was told of call 1, in the saved memory.
    const saved = (await runs.stores.runs.loadCheckpoint(runId)) as { memory: { role: string; content: string }[] };
    expect(saved.memory.filter((m) => m.role === "tool").map((m) => m.content.split(":")[0])).toEqual(["Interrupted"]);
  } finally {
    await runs.close();
  }
});

it("a compiler run killed while an approved task runs finishes without making the call again", async () => {
  const { store, log, runId } = await killInsideApprovedCall({ RUN_APPROVAL: "writes", RUN_STRATEGY: "compiler" });

  const c = spawnRun(["resume", store, log, "0", runId]);
  expect(await c.line(/^outcome /)).toBe("outcome final");
  expect(appended(log)).toEqual(["1"]);
  const runs = openRuns({ store });
  try {
    const results: string[] = [];
    for await (const { event } of runs.events(runId)) if (event.type === "workflow-step-end") results.push(event.result.split(":")[0] ?? "");
    expect(results).toEqual(["Interrupted"]);
  } finally {
    await runs.close();
  }
});
