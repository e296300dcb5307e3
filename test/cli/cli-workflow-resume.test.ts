import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../../src/stores/sqlite-run-store.js";
import { CLI, freshHome, runCli, workspace } from "./cli-harness.js";

/** Starts a slow offline run and kills it (SIGKILL) once its plain log says a step is done. */
async function killAfterAStep(strategy: string, home: string, ws: string): Promise<void> {
  const child = spawn(process.execPath, [CLI, "run", "Report", "-s", strategy, "-m", "scripted:demo@200ms", "-w", ws], {
    cwd: home,
    env: { PATH: process.env["PATH"] ?? "", HOME: home, STEPWISE_HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.setEncoding("utf8");
  for await (const chunk of child.stdout as AsyncIterable<string>) {
    out += chunk;
    if (/^plan: .* [1-9]\d*\/\d+ done/m.test(out)) break;
  }
  child.kill("SIGKILL");
  if (child.exitCode === null && child.signalCode === null) await once(child, "exit");
  expect(child.signalCode, out).toBe("SIGKILL");
}

const stepKey = (round: number, id: string) => `${round}:${id}`;

describe("a workflow run killed mid-plan resumes without redoing finished steps", () => {
  for (const strategy of ["compiler", "plan-execute"]) {
    it(strategy, async () => {
      const home = freshHome();
      const ws = workspace(home);
      await killAfterAStep(strategy, home, ws);

      const store = new SqliteRunStore(join(home, "stepwise.db"));
      try {
        const runId = (await store.listRuns(1))[0]!.id;
        const before = await store.events(runId, 0, 100_000);
        const finished = new Set(before.flatMap(({ event }) => (event.type === "workflow-step-end" ? [stepKey(event.round, event.stepId)] : [])));
        expect(finished.size).toBeGreaterThan(0);

        const resumed = await runCli(["run", "--resume", runId], { home });
        expect(resumed.code, resumed.stderr).toBe(0);
        const after = await store.events(runId, before.at(-1)?.seq ?? 0, 100_000);
        const restarted = after.flatMap(({ event }) => (event.type === "workflow-step-start" && finished.has(stepKey(event.round, event.step.id)) ? [event.step.description] : []));
        expect(restarted).toEqual([]);
        expect(after.some(({ event }) => event.type === "workflow-step-start")).toBe(true);
        expect(await store.getRun(runId)).toMatchObject({ status: "final" });
        expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("docs/a.md");
      } finally {
        await store.close();
      }
    }, 60_000);
  }
});
