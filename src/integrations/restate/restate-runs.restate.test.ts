import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalDecisions } from "../../core/approval.js";
import type { AgentEvent } from "../../core/events.js";
import { openStores, type StoreSet } from "../../runs/store-set.js";
import { runDetails } from "../../web/run-details.js";
import { openRuns } from "../../runs/runs.js";
import { startViewer } from "../../web/viewer-server.js";
import { decideRestateRun, restateDriver, restateRunResult, restateRunStatus, startRestateRun, type RestateIngress } from "./restate-run-client.js";
import type { RestatePause } from "./restate-run-service.js";
import { freePorts, startRestateServer, type RestateServer } from "./test-support/restate-server.js";
import { ServiceProcess } from "./test-support/service-process.js";
import { createDemoWorkspace } from "../../cli/demo/demo-workspace.js";
import { REPORT_PATH } from "../../cli/demo/workspace-survey.js";
import { DEMO_MODEL } from "../../cli/model-option.js";
import type { Plan } from "../../planning/notebook/plan.js";

const DEMO_TASK = "Survey this workspace and write report.md with one line per file.";

let server: RestateServer;
let ingress: RestateIngress;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  server = await startRestateServer();
  ingress = { url: server.ingressUrl };
});

afterAll(async () => {
  await server?.stop();
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A folder with the run store, the ledger and the workspace, and a service process registered with the server. */
async function setUp(hold?: Parameters<typeof ServiceProcess.start>[3]) {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-restate-run-"));
  const store = join(dir, "runs.db");
  const ledger = join(dir, "ledger");
  writeFileSync(ledger, "");
  const [port] = (await freePorts(1)) as [number];
  const services: ServiceProcess[] = [];
  const serve = async (holding?: typeof hold) => {
    const service = await ServiceProcess.start(port, store, ledger, holding);
    services.push(service);
    return service;
  };
  const first = await serve(hold);
  await server.register(`http://127.0.0.1:${port}`);
  const stores = openStores(store);
  cleanups.push(async () => {
    await stores.close();
    for (const service of services) await service.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, stores, first, serve, ledgerLines: () => readFileSync(ledger, "utf8").split("\n").filter(Boolean) };
}

/** Polls until `check` gives a value (a condition of the run, not a timer). */
async function eventually<T>(check: () => Promise<T | undefined | null | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function storedEvents(stores: StoreSet, runId: string): Promise<{ seq: number; event: AgentEvent }[]> {
  return stores.runs.events(runId, 0, 10_000);
}

/** The pause after `previous` (a new awakeable), once the run is parked on it. */
function nextPause(runId: string, previous?: RestatePause): Promise<RestatePause> {
  return eventually(async () => {
    const { pause } = await restateRunStatus(ingress, runId);
    return pause && pause.awakeable !== previous?.awakeable ? pause : undefined;
  });
}

/** A fresh copy of the offline demo's workspace, removed after the test. */
function demoWorkspace(): string {
  const workspace = createDemoWorkspace();
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  return workspace;
}

/** The notebook's changes as the run store logged them, the plan of each as plain JSON. */
function planUpdates(events: { event: AgentEvent }[]): { change: string; plan: Plan }[] {
  return events.flatMap(({ event }) => (event.type === "plan-updated" ? [JSON.parse(JSON.stringify({ change: event.change, plan: event.plan })) as { change: string; plan: Plan }] : []));
}

const approveAll = (pause: RestatePause): ApprovalDecisions => Object.fromEntries(pause.calls.map((call) => [call.id, { action: "approve" }]));

describe("Stepwise runs on Restate", () => {
  it("runs a todos run to the end, its events in the run store the viewer reads and its plan in the workflow's state", async () => {
    const { dir, stores, ledgerLines } = await setUp();
    const { runId } = await startRestateRun(ingress, { task: "record a, b and c", strategy: "todos", model: "test:todos", settings: { workspace: dir } });

    const result = await restateRunResult(ingress, runId);

    expect(result).toEqual({ runId, status: "final", text: "Recorded a, b and c." });
    expect(ledgerLines()).toEqual(["a", "b", "c"]);
    const run = await stores.runs.getRun(runId);
    expect(run).toMatchObject({ strategy: "todos", model: "test:todos", status: "final", answer: "Recorded a, b and c.", lease: null });
    const details = await runDetails(stores.runs, runId);
    expect(details?.toolCalls.map((call) => call.name)).toEqual(["write_todos", "ledger", "ledger", "ledger", "write_todos"]);
    expect(details?.checklist?.items.map((item) => [item.label, item.status])).toEqual([
      ["record a", "done"],
      ["record b", "done"],
      ["record c", "done"],
    ]);
    const { plan } = await restateRunStatus(ingress, runId);
    expect(plan?.items.every((item) => item.status === "done")).toBe(true);
  });

  it("runs a compiler run to the end, the task that needs both independent ones after them", async () => {
    const { dir, stores, ledgerLines } = await setUp();
    const { runId } = await startRestateRun(ingress, { task: "record x and y, then z", strategy: "compiler", model: "test:compiler", settings: { workspace: dir } });

    const result = await restateRunResult(ingress, runId);

    expect(result).toEqual({ runId, status: "final", text: "recorded x, y and z" });
    const lines = ledgerLines();
    expect(lines.slice(0, 2).sort()).toEqual(["x", "y"]);
    expect(lines.slice(2)).toEqual(["z after recorded x and recorded y"]);
    expect((await stores.runs.getRun(runId))?.status).toBe("final");
    const steps = (await storedEvents(stores, runId)).filter(({ event }) => event.type === "workflow-step-end");
    expect(steps).toHaveLength(3);
  });

  it("goes on in another service process after a kill -9 mid-run: each tool call happens once, each event is logged once", async () => {
    const { dir, stores, first, serve, ledgerLines } = await setUp("model:4");
    const { runId } = await startRestateRun(ingress, { task: "record a, b and c", strategy: "todos", model: "test:todos", settings: { workspace: dir } });
    // Model call 4 comes after the calls recording a and b have returned, so their results are journaled.
    await first.line(/^holding model 4$/);
    expect(ledgerLines()).toEqual(["a", "b"]);
    await first.kill();

    await serve();
    const result = await restateRunResult(ingress, runId);

    expect(result.status).toBe("final");
    expect(ledgerLines()).toEqual(["a", "b", "c"]);
    const events = await storedEvents(stores, runId);
    expect(events.map(({ seq }) => seq)).toEqual(events.map((_, at) => at + 1));
    const count = (type: string) => events.filter(({ event }) => event.type === type).length;
    expect([count("run-start"), count("run-end"), count("model-start"), count("model-end"), count("tool-end")]).toEqual([1, 1, 5, 5, 5]);
    const toolEnds = events.flatMap(({ event }) => (event.type === "tool-end" ? [event.call.id] : []));
    expect(toolEnds.sort()).toEqual(["ledger-a", "ledger-b", "ledger-c", "todos-1", "todos-2"]);
  });

  it("goes on with a compiler run killed mid-DAG: the independent tasks done come from the journal, the one cut off runs once", async () => {
    const { dir, stores, first, serve, ledgerLines } = await setUp("tool:z");
    const { runId } = await startRestateRun(ingress, { task: "record x and y, then z", strategy: "compiler", model: "test:compiler", settings: { workspace: dir } });
    // z starts only once x and y have returned, so their results are journaled.
    await first.line(/^holding tool z/);
    await first.kill();

    await serve();
    const result = await restateRunResult(ingress, runId);

    expect(result).toMatchObject({ status: "final", text: "recorded x, y and z" });
    const lines = ledgerLines();
    expect(lines.slice(0, 2).sort()).toEqual(["x", "y"]);
    expect(lines.slice(2)).toEqual(["z after recorded x and recorded y"]);
    const events = await storedEvents(stores, runId);
    expect(events.map(({ seq }) => seq)).toEqual(events.map((_, at) => at + 1));
    expect(events.filter(({ event }) => event.type === "workflow-step-end")).toHaveLength(3);
    expect(events.filter(({ event }) => event.type === "model-end")).toHaveLength(2);
  });

  it("parks a call that needs approval on an awakeable; decided through the API after a restart, the run finishes", async () => {
    const { dir, stores, first, serve, ledgerLines } = await setUp();
    const { runId } = await startRestateRun(ingress, {
      task: "record a, b and c",
      strategy: "todos",
      model: "test:todos",
      settings: { workspace: dir, approval: "writes" },
    });
    const pause = await nextPause(runId);
    expect(pause.calls).toMatchObject([{ name: "ledger", kind: "approval", arguments: JSON.stringify({ entry: "a" }) }]);
    await eventually(async () => (await stores.runs.getRun(runId))?.status === "awaiting-user");
    expect(ledgerLines()).toEqual([]);

    await first.kill();
    await serve();
    await expect(decideRestateRun(ingress, runId, {})).rejects.toThrow(/needs a decision for every pending call; missing: .*\(ledger\)/);
    await decideRestateRun(ingress, runId, approveAll(pause));
    const second = await nextPause(runId, pause);
    await decideRestateRun(ingress, runId, approveAll(second));
    const third = await nextPause(runId, second);
    await decideRestateRun(ingress, runId, Object.fromEntries(third.calls.map((call) => [call.id, { action: "reject", reason: "c is not wanted" }])));

    const result = await restateRunResult(ingress, runId);

    expect(result.status).toBe("final");
    expect(ledgerLines()).toEqual(["a", "b"]);
    const events = await storedEvents(stores, runId);
    expect(events.filter(({ event }) => event.type === "approval-requested")).toHaveLength(3);
    const rejected = events.find(({ event }) => event.type === "tool-end" && event.refused);
    expect(rejected?.event).toMatchObject({ result: { text: expect.stringContaining("c is not wanted") } });
    expect((await stores.runs.getRun(runId))?.status).toBe("final");
  });

  it("takes decisions for a paused Restate run through the viewer's API, the same errors as a local run's", async () => {
    const { dir, stores, ledgerLines } = await setUp();
    const runs = openRuns({ store: stores, externalDrivers: [restateDriver(ingress)] });
    const viewer = await startViewer({ runs, host: "127.0.0.1", port: 0 });
    cleanups.push(async () => {
      await viewer.close();
      await runs.close();
    });
    const decide = async (runId: string, decisions: ApprovalDecisions) => {
      const response = await fetch(new URL(`/api/runs/${runId}/decisions`, viewer.url), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ decisions }),
      });
      return { status: response.status, body: (await response.json()) as { error?: string; status?: string } };
    };
    const { runId } = await startRestateRun(ingress, {
      task: "record a, b and c",
      strategy: "todos",
      model: "test:todos",
      settings: { workspace: dir, approval: "writes" },
    });
    const pause = await nextPause(runId);
    await eventually(async () => (await stores.runs.getRun(runId))?.status === "awaiting-user");

    const missing = await decide(runId, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/needs a decision for every pending call; missing: .*\(ledger\)/);
    await expect(runs.decideExternally(runId, {})).rejects.toThrow(missing.body.error as string);
    expect(await decide(runId, approveAll(pause))).toEqual({ status: 202, body: { status: "resuming" } });
    const second = await nextPause(runId, pause);
    await eventually(async () => (await stores.runs.getRun(runId))?.status === "awaiting-user");
    await runs.decideExternally(runId, approveAll(second));
    const third = await nextPause(runId, second);
    await eventually(async () => (await stores.runs.getRun(runId))?.status === "awaiting-user");
    expect((await decide(runId, Object.fromEntries(third.calls.map((call) => [call.id, { action: "reject", reason: "not c" }])))).status).toBe(202);

    expect((await restateRunResult(ingress, runId)).status).toBe("final");
    expect(ledgerLines()).toEqual(["a", "b"]);
    const ended = await decide(runId, approveAll(third));
    expect(ended).toEqual({ status: 409, body: { error: `run ${runId} is final, not waiting for the user` } });
  });

  it("goes on with a notebook run killed mid-plan: the replay rebuilds the same plan, ids and times, and writes the report once", async () => {
    const { stores, first, serve } = await setUp("model:5");
    const workspace = demoWorkspace();
    const { runId } = await startRestateRun(ingress, { task: DEMO_TASK, strategy: "notebook", model: DEMO_MODEL, settings: { workspace } });
    await first.line(/^holding model 5$/);
    const before = planUpdates(await storedEvents(stores, runId));
    expect(before.length).toBeGreaterThan(0);
    await first.kill();

    await serve();
    const result = await restateRunResult(ingress, runId);

    expect(result.status).toBe("final");
    expect(readFileSync(join(workspace, REPORT_PATH), "utf8")).toContain("3 file(s)");
    const events = await storedEvents(stores, runId);
    expect(events.map(({ seq }) => seq)).toEqual(events.map((_, at) => at + 1));
    const after = planUpdates(events);
    // One plan, created once: the updates after the kill name the plan and subtasks the ones before did.
    expect(after.filter(({ change }) => change === "created")).toHaveLength(1);
    expect(new Set(after.map(({ plan }) => plan.id)).size).toBe(1);
    expect(new Set(after.map(({ plan }) => plan.subtasks.map((subtask) => subtask.id).join()))).toEqual(new Set([before[0]!.plan.subtasks.map((subtask) => subtask.id).join()]));
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.at(-1)).toMatchObject({ change: "finished", plan: { state: "done", subtasks: [{ state: "done" }, { state: "done" }, { state: "done" }] } });
  });

  it("goes on with a task-board run killed mid-board: the board's tasks are created once, and all end completed", async () => {
    const { stores, first, serve } = await setUp("model:5");
    const workspace = demoWorkspace();
    const { runId } = await startRestateRun(ingress, { task: DEMO_TASK, strategy: "tasks", model: DEMO_MODEL, settings: { workspace } });
    // Model call 5 comes after the tasks were created and linked.
    await first.line(/^holding model 5$/);
    expect((await stores.board(runId).list()).map((task) => task.subject)).toHaveLength(3);
    await first.kill();

    await serve();
    const result = await restateRunResult(ingress, runId);

    expect(result.status).toBe("final");
    const board = await stores.board(runId).list();
    expect(board.map((task) => [task.id, task.state])).toEqual([
      ["1", "completed"],
      ["2", "completed"],
      ["3", "completed"],
    ]);
    const events = await storedEvents(stores, runId);
    expect(events.map(({ seq }) => seq)).toEqual(events.map((_, at) => at + 1));
    expect(events.filter(({ event }) => event.type === "tool-end" && event.call.name === "TaskCreate")).toHaveLength(3);
    const { plan } = await restateRunStatus(ingress, runId);
    expect(plan).toMatchObject({ kind: "tasks", items: [{ status: "done" }, { status: "done" }, { status: "done" }] });
  });
});
