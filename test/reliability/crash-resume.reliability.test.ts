import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDemoWorkspace } from "../../src/cli/demo/demo-workspace.js";
import type { PlanData } from "../../src/planning/notebook/plan.js";
import { openSqliteDatabase } from "../../src/stores/sqlite-database.js";
import { SqlitePlanStore } from "../../src/stores/sqlite-plan-store.js";
import { SqliteRunStore } from "../../src/stores/sqlite-run-store.js";
import { CLI, freshHome, runCli } from "../cli/cli-harness.js";
import { recordFigure } from "./figures.js";

/**
 * A notebook run of the offline demo on the SQLite store, killed with SIGKILL at random moments and
 * resumed with `stepwise run --resume` each time until it finishes. Nothing committed may be lost
 * (a finished subtask stays finished across every kill) and nothing may be done twice (one plan, each
 * subtask finished by exactly one successful call, no tool call refused as a repeat).
 */
const CRASH_POINTS = 50;
const CHAINS = 5;
const TASK = "Survey the workspace and write report.md";
// Each model answer takes this long, so a run lasts about a second and most kills land mid-run.
const MODEL = "scripted:demo@40ms";
const MAX_DELAY_MS = 1_400;

let crashPoints = 0;
let statesLost = 0;
const lossReasons: string[] = [];

afterAll(() => {
  recordFigure("2-crash", `crash points tried ${crashPoints}, states lost ${statesLost}`);
});

type Snapshot = { runId: string | null; status: string | null; plans: PlanData[] };

async function snapshot(home: string): Promise<Snapshot> {
  const db = openSqliteDatabase(join(home, "stepwise.db"));
  try {
    const run = (await new SqliteRunStore(db).listRuns(1))[0];
    if (!run) return { runId: null, status: null, plans: [] };
    return { runId: run.id, status: run.status, plans: await new SqlitePlanStore(db, { scope: run.id }).list() };
  } finally {
    db.close();
  }
}

const doneSubtasks = (s: Snapshot) => s.plans.flatMap((p) => p.subtasks.filter((t) => t.state === "done").map((t) => t.name));

function lost(reason: string): void {
  statesLost++;
  lossReasons.push(reason);
}

function start(args: string[], home: string): { child: ChildProcess; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: home,
    env: { PATH: process.env["PATH"] ?? "", HOME: home, STEPWISE_HOME: home },
    stdio: "ignore",
  });
  return { child, exited: new Promise((resolve) => child.on("exit", (code) => resolve(code))) };
}

/** One run, killed `kills` times at random moments, then resumed to its end; returns its home and workspace. */
async function crashChain(kills: number, referenceReport: string): Promise<void> {
  const home = freshHome();
  const workspace = createDemoWorkspace();
  const runArgs = ["run", TASK, "--strategy", "notebook", "--model", MODEL, "--workspace", workspace];
  try {
    let before = await snapshot(home);
    for (let landed = 0; landed < kills; ) {
      const args = before.runId ? ["run", "--resume", "--workspace", workspace] : runArgs;
      if (before.status === "final") break;
      const { child, exited } = start(args, home);
      const delay = Math.floor(Math.random() * MAX_DELAY_MS);
      const outcome = await Promise.race([exited.then(() => "exited" as const), sleep(delay).then(() => "due" as const)]);
      if (outcome === "due" && child.exitCode === null) {
        child.kill("SIGKILL");
        await exited;
        landed++;
        crashPoints++;
      }
      const after = await snapshot(home);
      const forgotten = doneSubtasks(before).filter((name) => !doneSubtasks(after).includes(name));
      if (forgotten.length > 0) lost(`finished subtask(s) ${forgotten.join(", ")} no longer done after a kill`);
      if (after.plans.length > 1) lost(`${after.plans.length} plans after a kill: the run planned twice`);
      before = after;
    }
    if (before.status !== "final") {
      const resumed = before.runId
        ? await runCli(["run", "--resume", "--workspace", workspace], { home })
        : await runCli(runArgs, { home });
      expect(resumed.code, resumed.stderr).toBe(0);
    }
    await checkFinished(home, workspace, referenceReport);
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}

async function checkFinished(home: string, workspace: string, referenceReport: string): Promise<void> {
  const final = await snapshot(home);
  const db = openSqliteDatabase(join(home, "stepwise.db"));
  const events = (await new SqliteRunStore(db).events(final.runId ?? "", 0, 100_000)).map((e) => e.event);
  db.close();
  const problems: string[] = [];
  if (final.status !== "final") problems.push(`run ended ${final.status}`);
  if (final.plans.length !== 1) problems.push(`${final.plans.length} plans`);
  const plan = final.plans[0];
  if (plan?.state !== "done") problems.push(`plan is ${plan?.state}`);
  if (plan?.subtasks.some((s) => s.state !== "done" || !s.outcome)) problems.push("a subtask is not done with an outcome");
  // A repeated plan change is refused with an error result: none may appear in any segment's log.
  const refused = events.flatMap((e) => (e.type === "tool-end" && e.result.isError ? [`${e.call.name}: ${e.result.text}`] : []));
  if (refused.length > 0) problems.push(`error results: ${refused.join(" | ")}`);
  const finishes = events.flatMap((e) =>
    e.type === "tool-end" && e.call.name === "finish_subtask" && !e.result.isError ? [JSON.parse(e.call.arguments).subtask_idx as number] : [],
  );
  if (new Set(finishes).size !== finishes.length) problems.push(`a subtask finished twice: ${finishes.join(",")}`);
  const report = readFileSync(join(workspace, "report.md"), "utf8");
  if (report !== referenceReport) problems.push("report.md differs from an uninterrupted run's");
  if (problems.length > 0) lost(problems.join("; "));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("crash and resume: SIGKILL at random moments, then stepwise run --resume", () => {
  it(`loses no committed state and repeats no finished step over ${CRASH_POINTS} kills`, async () => {
    const home = freshHome();
    const workspace = createDemoWorkspace();
    const reference = await runCli(["run", TASK, "--strategy", "notebook", "--model", "scripted:demo", "--workspace", workspace], { home });
    expect(reference.code, reference.stderr).toBe(0);
    const referenceReport = readFileSync(join(workspace, "report.md"), "utf8");
    expect(referenceReport).toContain("notes/kickoff.md");
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });

    // Chains run side by side; each keeps killing until the shared count is reached.
    const perChain = Math.ceil(CRASH_POINTS / CHAINS);
    await Promise.all(
      Array.from({ length: CHAINS }, async () => {
        while (crashPoints < CRASH_POINTS) await crashChain(Math.min(perChain, CRASH_POINTS - crashPoints), referenceReport);
      }),
    );
    expect(lossReasons).toEqual([]);
    expect(statesLost).toBe(0);
    expect(crashPoints).toBeGreaterThanOrEqual(CRASH_POINTS);
  });
});
