import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freshSchema, RunProcess } from "./run-process-harness.js";

// Built code only (`npm run build` first): what a user's processes would run. Needs PostgreSQL.
const distEntry = new URL("../../dist/runs/index.js", import.meta.url).href;
const { openRuns } = (await import(distEntry)) as typeof import("../../src/runs/index.js");

const cleanups: (() => Promise<void>)[] = [];
const children: RunProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.child.exitCode === null) child.child.kill("SIGKILL");
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<{ url: string; log: string }> {
  const schema = await freshSchema();
  cleanups.push(schema.drop);
  return { url: schema.url, log: join(mkdtempSync(join(tmpdir(), "stepwise-takeover-")), "calls.log") };
}

function spawnRun(args: string[]): RunProcess {
  const child = new RunProcess(args);
  children.push(child);
  return child;
}

const appended = (log: string) => readFileSync(log, "utf8").split("\n").filter(Boolean);

describe("a run on PostgreSQL taken over by another process (public API, real processes)", () => {
  it("killed with SIGKILL mid-call, is resumed by exactly one of two racing processes and finishes with each call once", async () => {
    const { url, log } = await setup();
    const a = spawnRun(["start", url, log, "3"]);
    const runId = (await a.line(/^run /)).slice(4);
    await a.line(/^holding 3$/);
    a.child.kill("SIGKILL");
    await a.exited;
    expect(appended(log)).toEqual(["1", "2", "3"]);

    // Two resumers at once: the winner holds the run inside call 4 until released; the other is refused.
    const b = spawnRun(["resume", url, log, "4", runId]);
    const c = spawnRun(["resume", url, log, "4", runId]);
    // Promise.any: the loser exits at once, and its unmatched wait must not decide the race.
    const first = await Promise.any([b.line(/^holding 4$/).then(() => b), c.line(/^holding 4$/).then(() => c)]);
    const loser = first === b ? c : b;
    expect(await loser.line(/^error /)).toMatch(new RegExp(`^error run ${runId} is already being resumed by \\S+:\\d+:`));
    expect(await loser.exited).toBe(1);
    first.release();
    expect(await first.line(/^outcome /)).toBe("outcome final");
    expect(await first.exited).toBe(0);

    expect(appended(log)).toEqual(["1", "2", "3", "4", "5"]);
    const runs = openRuns({ store: url });
    try {
      expect(await runs.get(runId)).toMatchObject({ status: "final", answer: "appended 5", lease: null });
      const ends: string[] = [];
      for await (const { event } of runs.events(runId)) if (event.type === "tool-end") ends.push(`${event.call.arguments} ${event.result.text.split(":")[0]}`);
      // Call 3's result was never recorded before the kill: the resumed run says so instead of running it again.
      expect(ends).toEqual(['{"n":1} appended 1', '{"n":2} appended 2', '{"n":4} appended 4', '{"n":5} appended 5']);
    } finally {
      await runs.close();
    }
  });

  it("refuses the writes of a driver paused (SIGSTOP) past its lease once a worker took the run over; the driver stops with a clear error", async () => {
    const { url, log } = await setup();
    const d1 = spawnRun(["start", url, log, "2", "1000"]);
    const runId = (await d1.line(/^run /)).slice(4);
    await d1.line(/^holding 2$/);
    d1.child.kill("SIGSTOP");

    // A worker takes the run once the paused driver's lease has run out, and holds it inside call 4.
    const worker = spawnRun(["work", url, log, "4"]);
    await worker.line(/^holding 4$/);

    d1.child.kill("SIGCONT");
    d1.release();
    expect(await d1.line(/^error /)).toMatch(new RegExp(`^error run ${runId}: it was taken over by \\S+; \\S+ no longer holds its lease, so its writes are refused and it stops driving the run$`));
    expect(await d1.exited).toBe(1);

    worker.release();
    expect(await worker.line(/^outcome /)).toBe("outcome final");
    // The paused driver ran nothing after it came back; the worker ran each remaining call once.
    expect(appended(log)).toEqual(["1", "2", "3", "4", "5"]);
    const runs = openRuns({ store: url });
    try {
      expect(await runs.get(runId)).toMatchObject({ status: "final" });
    } finally {
      await runs.close();
    }
  });
});
