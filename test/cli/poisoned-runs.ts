import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { startCli, workspace } from "./cli-harness.js";

// Built code only (`npm run build` first), as a worker's machine would run it.
const distEntry = new URL("../../dist/runs/index.js", import.meta.url).href;
const { openStores, openRuns } = (await import(distEntry)) as typeof import("../../src/runs/index.js");
const { McpSigner } = (await import(new URL("../../dist/cli/mcp-signing.js", import.meta.url).href)) as typeof import("../../src/cli/mcp-signing.js");

/** The ways a run left `running` by a dead driver cannot be resumed on this worker, 15 runs of each. */
const POISONS = ["workspace missing here", "no API key here", "corrupt checkpoint", "MCP server that will not start"] as const;
const EACH = 15;

export type PoisonedStore = { poisoned: Map<string, (typeof POISONS)[number]>; good: string; spawnLog: string; ws: string };

/**
 * Fills the store with 60 runs a dead driver left `running` that cannot be resumed here (the attack: more
 * than the 50 a worker's scan takes), then one good run whose driver died too, newest of all.
 */
export async function poisonStore(home: string, store: string): Promise<PoisonedStore> {
  const ws = workspace(home);
  const spawnLog = join(home, "mcp-spawns.log");
  const failingServer = join(home, "failing-mcp-server.cjs");
  // Each start of the run's MCP command is counted, then it exits before speaking MCP.
  writeFileSync(failingServer, `require("node:fs").appendFileSync(${JSON.stringify(spawnLog)}, "spawned\\n"); process.exit(1);\n`);
  writeFileSync(spawnLog, "");
  const stores = openStores(store);
  const poisoned = new Map<string, (typeof POISONS)[number]>();
  const create = async (model: string, settings: object) => {
    const id = randomUUID();
    // A driver on another machine that created the run and died: its lease has run out.
    const lease = await stores.runs.createRun({ id, task: "Survey the workspace and write report.md", strategy: "todos", model }, settings, "gone-machine:1:dead", 1);
    return { id, lease };
  };
  try {
    for (const poison of POISONS) {
      for (let i = 0; i < EACH; i++) {
        const settings = { workspace: ws, approval: "none" };
        const { id, lease } =
          poison === "workspace missing here"
            ? await create("scripted:demo", { ...settings, workspace: join(home, `elsewhere-${i}`) })
            : poison === "no API key here"
              ? await create("openai:gpt-4o-mini", settings)
              : poison === "corrupt checkpoint"
                ? await create("scripted:demo", settings)
                : // Set by `stepwise run --mcp` in this home, so signed: the worker starts it, and it will not come up.
                  await create("scripted:demo", { ...settings, mcp: new McpSigner(home).sign({ servers: { tools: `${process.execPath} ${failingServer}` } }) });
        if (poison === "corrupt checkpoint") await stores.runs.appendEvents(lease, [], { state: { version: 1, memory: "not a list of messages" } });
        poisoned.set(id, poison);
      }
    }
    const { id: good } = await create("scripted:demo", { workspace: ws, approval: "none" });
    return { poisoned, good, spawnLog, ws };
  } finally {
    await stores.close();
  }
}

/**
 * `stepwise worker` (not --once) on the poisoned store until the good run finished and every poisoned one
 * was given up on; then asserts each poisoned run was tried exactly `attempts` times, by the worker's lines,
 * the store's count and the MCP command's starts.
 */
export async function workThroughPoison(home: string, storeArgs: string[], store: string, setup: PoisonedStore): Promise<void> {
  const attempts = 2;
  const worker = startCli(["worker", ...storeArgs, "--resume-attempts", String(attempts), "--resume-backoff", "20"], { home });
  const runs = openRuns({ store });
  try {
    const settled = async () => {
      const all = await runs.list(1000);
      const good = all.find((run) => run.id === setup.good)?.status;
      const givenUp = all.filter((run) => setup.poisoned.has(run.id) && run.status === "failed").length;
      return { good, givenUp };
    };
    await expect.poll(settled, { timeout: 90_000, interval: 200 }).toEqual({ good: "final", givenUp: setup.poisoned.size });
    worker.child.kill("SIGTERM");
    expect(await worker.exited, worker.stderr()).toBe(0);

    expect(readFileSync(join(setup.ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
    const lines = worker.stdout().split("\n");
    for (const [id, poison] of setup.poisoned) {
      const run = await runs.get(id);
      expect(run, poison).toMatchObject({ status: "failed", lease: null, resumeFailures: { count: attempts } });
      const tried = lines.filter((line) => line.startsWith(`run ${id} `));
      expect(tried, poison).toHaveLength(attempts);
      expect(tried.at(-1), poison).toMatch(new RegExp(`^run ${id} \\(todos\\): failed: .+ \\(${attempts} failed resumes in a row: marked failed\\)$`));
      const errors: string[] = [];
      for await (const { event } of runs.events(id)) if (event.type === "run-error") errors.push(event.message);
      expect(errors, poison).toEqual([`gave up resuming the run after ${attempts} failed attempts in a row; the last: ${run?.resumeFailures?.lastError}`]);
    }
    const reasons = [...setup.poisoned].map(async ([id, poison]) => [poison, (await runs.get(id))?.resumeFailures?.lastError] as const);
    const byPoison = new Map((await Promise.all(reasons)).map(([poison, reason]) => [poison, reason]));
    expect(byPoison.get("workspace missing here")).toMatch(/^workspace \S+elsewhere-\d+ does not exist/);
    expect(byPoison.get("no API key here")).toMatch(/OPENAI_API_KEY/);
    expect(byPoison.get("corrupt checkpoint")).toMatch(/loadState expects an object saved by Agent\.saveState\(\)/);
    expect(byPoison.get("MCP server that will not start")).toMatch(/^MCP server tools: /);
    // No spin: each run's MCP command was started once per attempt, not at every wake-up.
    const spawns = readFileSync(setup.spawnLog, "utf8").split("\n").filter(Boolean).length;
    expect(spawns).toBe(EACH * attempts);
  } finally {
    if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
    await runs.close();
  }
}
