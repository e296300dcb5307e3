import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { built, driverProcesses } from "./run-process-harness.js";

// Built code only (`npm run build` first): a worker process driving three runs at once on one SQLite file.
const spawnWorker = driverProcesses();
const NAMES = ["a", "b", "c"];

async function queued(): Promise<{ store: string; log: string; ids: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-shutdown-"));
  const store = join(dir, "runs.db");
  const runs = built.openRuns({ store });
  try {
    const ids: string[] = [];
    for (const name of NAMES) ids.push(await runs.enqueue({ task: `append five numbers for ${name}`, strategy: "todos", model: "test:appender", settings: { workspace: dir } }));
    return { store, log: join(dir, "calls.log"), ids };
  } finally {
    await runs.close();
  }
}

const logged = (log: string) => readFileSync(log, "utf8").split("\n").filter(Boolean).sort();
const everyCallOnce = NAMES.flatMap((name) => [1, 2, 3, 4, 5].map((n) => `${name} ${n}`)).sort();

async function runsIn(store: string, ids: string[]) {
  const runs = built.openRuns({ store });
  try {
    return await Promise.all(ids.map((id) => runs.get(id)));
  } finally {
    await runs.close();
  }
}

/** Each run's log as it stands (the runs are left running: their events are not followed). */
async function logsIn(store: string, ids: string[]) {
  const runs = built.openRuns({ store });
  try {
    return await Promise.all(ids.map(async (id) => (await runs.stores.runs.events(id, 0, 1000)).map(({ event }) => event)));
  } finally {
    await runs.close();
  }
}

describe("a worker driving several runs at once, stopped by a signal (real processes)", () => {
  it("on SIGTERM takes no more work, lets each run's call in flight finish (its result logged), hands the runs back and exits 0; another worker finishes them", async () => {
    const { store, log, ids } = await queued();
    const worker = spawnWorker(["fleet", store, log, "2", "3"]);
    for (const name of NAMES) await worker.line(new RegExp(`^holding ${name} 2$`));
    worker.child.kill("SIGTERM");
    await worker.line(/^stopping$/);
    // The worker waits for the held calls: each run stops once its step is done, before its next model call.
    worker.release();
    expect(await worker.exited).toBe(0);
    expect(worker.lines.filter((line) => line.startsWith("outcome ")).sort()).toEqual(ids.map((id) => `outcome ${id} running`).sort());
    expect(logged(log)).toEqual(NAMES.flatMap((name) => [`${name} 1`, `${name} 2`]).sort());
    for (const run of await runsIn(store, ids)) expect(run).toMatchObject({ status: "running", lease: null });
    for (const events of await logsIn(store, ids)) {
      expect(events.filter((event) => event.type === "tool-end").map((event) => event.result.text)).toEqual(["appended 1", "appended 2"]);
      expect(events.some((event) => event.type === "call-interrupted")).toBe(false);
    }

    const next = spawnWorker(["fleet", store, log, "0", "3"]);
    for (const id of ids) await next.line(new RegExp(`^outcome ${id} final$`));
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    expect(logged(log)).toEqual(everyCallOnce);
  });

  // The second signal ends the process while the held calls still wait: the runs are left to their leases.
  it("a second SIGTERM ends it at once, the held calls still waiting; another worker takes the runs over once their leases run out, and makes each call once", async () => {
    const { store, log, ids } = await queued();
    const worker = spawnWorker(["fleet", store, log, "2", "3"], { LEASE_MS: "1500" });
    for (const name of NAMES) await worker.line(new RegExp(`^holding ${name} 2$`));
    worker.child.kill("SIGTERM");
    await worker.line(/^stopping$/);
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBeNull();
    expect(worker.child.signalCode).toBe("SIGTERM");
    for (const run of await runsIn(store, ids)) expect(run?.status).toBe("running");

    const next = spawnWorker(["fleet", store, log, "0", "3"]);
    for (const id of ids) await next.line(new RegExp(`^outcome ${id} final$`));
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
    // Each held call ran once: a resumed run records it as interrupted rather than running it again.
    expect(logged(log)).toEqual(everyCallOnce);
  });
});
