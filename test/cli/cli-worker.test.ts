import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freshHome, runCli, workspace } from "./cli-harness.js";

const distEntry = new URL("../../dist/index.js", import.meta.url).href;
const { openRuns } = (await import(distEntry)) as typeof import("../../src/index.js");

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
    expect(worked.stdout).toContain(`run ${runId} (todos): finished`);
    expect(existsSync(join(ws, "report.md"))).toBe(true);
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
  });
});
