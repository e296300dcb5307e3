import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoWorkspace } from "../../src/cli/demo/demo-workspace.js";
import { REPORT_PATH } from "../../src/cli/demo/workspace-survey.js";
import { restateRunResult, restateRunStatus, startRestateRun, type RestateIngress } from "../../src/integrations/restate/restate-run-client.js";
import { startRestateServer, type RestateServer } from "../../src/integrations/restate/test-support/restate-server.js";
import { openRuns } from "../../src/runs/runs.js";
import { openStores, type StoreSet } from "../../src/runs/store-set.js";
import { STRATEGIES } from "../../src/runs/strategies.js";
import { runDetails } from "../../src/web/run-details.js";
import { freshHome, runCli, startCli, type StartedCli } from "./cli-harness.js";

const DEMO_TASK = "Survey this workspace and write report.md with one line per file.";

let server: RestateServer;
let ingress: RestateIngress;
let home: string;
let service: StartedCli;
let stores: StoreSet;
let store: string;

beforeAll(async () => {
  server = await startRestateServer();
  ingress = { url: server.ingressUrl };
  home = freshHome();
  store = join(home, "runs.db");
  service = startCli(["restate", "serve", "--port", "0", "--store", store, "--register", server.adminUrl], { home });
  await service.printed(/^Stepwise runs on Restate at http:\/\/127\.0\.0\.1:\d+, runs in .*runs\.db; registered with /m);
  stores = openStores(store);
});

afterAll(async () => {
  await stores?.close();
  service?.child.kill("SIGTERM");
  await service?.exited;
  await server?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe("stepwise restate serve", () => {
  // The built-in driver's strategies, every one: each does the offline demo's job as an invocation.
  for (const strategy of STRATEGIES) {
    it(`runs a ${strategy} run to the end, its plan and events where the viewer reads them`, async () => {
      const workspace = createDemoWorkspace();
      try {
        const { runId } = await startRestateRun(ingress, { task: DEMO_TASK, strategy, model: "scripted:demo", settings: { workspace } });

        const result = await restateRunResult(ingress, runId);

        expect(result).toMatchObject({ runId, status: "final" });
        expect(readFileSync(join(workspace, REPORT_PATH), "utf8")).toContain("3 file(s)");
        expect(await stores.runs.getRun(runId)).toMatchObject({ strategy, model: "scripted:demo", status: "final", lease: null });
        const details = await runDetails(stores.runs, runId);
        expect(details?.toolCalls.some((call) => call.name === "write_file")).toBe(true);
        expect(details?.checklist?.items.length).toBeGreaterThan(0);
        if (strategy === "tasks") expect((await stores.board(runId).list()).map((task) => task.state)).toEqual(["completed", "completed", "completed"]);
        // The notebook's plan is finished and put away at the end; every other plan stays in the workflow's state.
        if (strategy !== "notebook") expect((await restateRunStatus(ingress, runId)).plan?.items.length).toBeGreaterThan(0);
      } finally {
        rmSync(workspace, { recursive: true, force: true });
      }
    });
  }

  it("takes a paused run's decisions from stepwise run --resume --decisions --restate-ingress, and the run finishes on Restate", async () => {
    const workspace = createDemoWorkspace();
    const runs = openRuns({ store: stores });
    try {
      const { runId } = await startRestateRun(ingress, { task: DEMO_TASK, strategy: "todos", model: "scripted:demo", settings: { workspace, approval: "writes" } });
      await pausedFor(runs, runId);
      const decisions = join(home, "approve.json");
      writeFileSync(decisions, JSON.stringify([{ action: "approve" }]));

      const sent = await runCli(["run", "--resume", runId, "--decisions", decisions, "--restate-ingress", ingress.url, "--store", store], { home });

      expect(sent.stderr).toBe("");
      expect(sent.code).toBe(0);
      expect(sent.stdout).toMatch(new RegExp(`^decisions for run ${runId} sent to Restate at ${ingress.url}`));
      expect(await restateRunResult(ingress, runId)).toMatchObject({ runId, status: "final" });
      expect(readFileSync(join(workspace, REPORT_PATH), "utf8")).toContain("3 file(s)");
    } finally {
      await runs.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("refuses a port it cannot use, in one line", async () => {
    const result = await runCli(["restate", "serve", "--port", "70000"]);

    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/--port.*expected a port number from 0 to 65535/);
  });

  it("says where registering failed when the admin API is not there", async () => {
    const result = await runCli(["restate", "serve", "--port", "0", "--register", "http://127.0.0.1:9"]);

    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^stepwise: .*http:\/\/127\.0\.0\.1:9/);
  });
});

/** Resolves once the run is paused for the user, as the store announces its changes. */
async function pausedFor(runs: ReturnType<typeof openRuns>, runId: string): Promise<void> {
  let off: (() => void) | undefined;
  await new Promise<void>((resolve, reject) => {
    const check = () => runs.get(runId).then((run) => run?.status === "awaiting-user" && resolve(), reject);
    void runs.watch((changed) => void (changed === runId && check())).then((stop) => {
      off = stop;
      void check();
    });
  });
  off?.();
}
