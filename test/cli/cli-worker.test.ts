import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliTestTimeout, freshHome, runCli, startCli, workspace } from "./cli-harness.js";

const distEntry = new URL("../../dist/runs/index.js", import.meta.url).href;
const { openRuns } = (await import(distEntry)) as typeof import("../../src/runs/index.js");

describe("stepwise worker", () => {
  it("drives a paused run once decisions were submitted for it, and leaves runs nobody decided alone", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const paused = await runCli(["run", "Report", "-s", "todos", "-m", "scripted:demo", "-w", ws, "--approval", "writes"], { home });
    expect(paused.code, paused.stderr).toBe(3);
    const runId = /^run (\S+) \(todos\)/m.exec(paused.stdout)?.[1] ?? "";

    const idle = await runCli(["worker", "--once"], { home });
    expect(idle.code, idle.stderr).toBe(0);
    expect(idle.stdout).not.toContain(runId);

    const runs = openRuns({ store: join(home, "stepwise.db") });
    try {
      let pending: { id: string; name: string }[] = [];
      for await (const { event } of runs.events(runId)) if (event.type === "approval-requested") pending = event.calls;
      expect(pending.map((call) => call.name)).toEqual(["write_file"]);
      await runs.submitDecisions(runId, { [pending[0]!.id]: { action: "approve" } });
      await expect(runs.submitDecisions(runId, { [pending[0]!.id]: { action: "approve" } })).rejects.toThrow(`run ${runId} already has decisions waiting for a driver (stepwise worker)`);
    } finally {
      await runs.close();
    }

    const worked = await runCli(["worker", "--once"], { home });
    expect(worked.code, worked.stderr).toBe(0);
    expect(worked.stdout).toContain(`run ${runId} (todos): final`);
    expect(existsSync(join(ws, "report.md"))).toBe(true);
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
  }, cliTestTimeout(3));

  it("with --concurrency drives queued runs at once, each to its end", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const queue = openRuns({ store: join(home, "stepwise.db") });
    const ids: string[] = [];
    try {
      for (const task of ["Report one", "Report two", "Report three"]) {
        ids.push(await queue.enqueue({ task, strategy: "todos", model: "scripted:demo@200ms", settings: { workspace: ws } }));
      }
    } finally {
      await queue.close();
    }
    const worked = await runCli(["worker", "--once", "--concurrency", "3"], { home });
    expect(worked.code, worked.stderr).toBe(0);
    expect(worked.stdout).toContain("up to 3 runs at once");
    for (const id of ids) expect(worked.stdout).toContain(`run ${id} (todos): final`);

    // Driven at once: every run started before any had ended.
    const runs = openRuns({ store: join(home, "stepwise.db") });
    try {
      const spans = await Promise.all(
        ids.map(async (id) => {
          const times: number[] = [];
          for await (const { event } of runs.events(id)) times.push(event.time);
          return { start: Math.min(...times), end: Math.max(...times) };
        }),
      );
      expect(Math.max(...spans.map((span) => span.start))).toBeLessThan(Math.min(...spans.map((span) => span.end)));
    } finally {
      await runs.close();
    }
  }, cliTestTimeout(2));

  it("without --once waits for work on a SQLite store: a run decided after it started is driven, and SIGTERM stops it with 0", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const paused = await runCli(["run", "Report", "-s", "todos", "-m", "scripted:demo", "-w", ws, "--approval", "writes"], { home });
    expect(paused.code, paused.stderr).toBe(3);
    const runId = /^run (\S+) \(todos\)/m.exec(paused.stdout)?.[1] ?? "";

    const worker = startCli(["worker"], { home });
    const runs = openRuns({ store: join(home, "stepwise.db") });
    try {
      // The worker has looked at the store once (its banner comes after the stores opened) and found nothing to do.
      await expect.poll(worker.stdout, { timeout: 20_000 }).toContain("stepwise worker on");
      let pending: { id: string }[] = [];
      for await (const { event } of runs.events(runId)) if (event.type === "approval-requested") pending = event.calls;
      await runs.submitDecisions(runId, { [pending[0]!.id]: { action: "approve" } });
      await expect.poll(worker.stdout, { timeout: 20_000 }).toContain(`run ${runId} (todos): final`);
      worker.child.kill("SIGTERM");
      expect(await worker.exited).toBe(0);
      expect(existsSync(join(ws, "report.md"))).toBe(true);
    } finally {
      if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
      await runs.close();
    }
  });
});
