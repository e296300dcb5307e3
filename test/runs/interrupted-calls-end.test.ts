import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { silentModel } from "../../src/models/test-support/silent-model.js";
import { openRuns, type Runs } from "../../src/runs/runs.js";
import { startViewer, type Viewer } from "../../src/web/viewer-server.js";
import { RunProcess } from "./run-process-harness.js";

const children: RunProcess[] = [];
const open: { runs: Runs; viewer: Viewer }[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) if (child.child.exitCode === null) child.child.kill("SIGKILL");
  for (const { runs, viewer } of open.splice(0)) {
    await viewer.close();
    await runs.close();
  }
});

function spawnRun(args: string[], env: NodeJS.ProcessEnv = {}): RunProcess {
  const child = new RunProcess(args, env);
  children.push(child);
  return child;
}

async function serve(store: string) {
  const runs = openRuns({ store });
  const viewer = await startViewer({ runs });
  open.push({ runs, viewer });
  const get = async (path: string) => (await (await fetch(new URL(path, viewer.url))).json()) as any;
  return { runs, get };
}

/** Every call of a run, as GET /api/runs/:id lists it, that never got an end. */
const unended = (details: { toolCalls: { end?: number }[]; modelCalls: { end?: number }[] }) => [...details.toolCalls, ...details.modelCalls].filter((call) => call.end === undefined);

/**
 * A run (of `strategy`) whose driver is killed with kill -9 inside the call holding at `holdAt`, once
 * that call's start is in the log, then resumed to its end in another process.
 */
async function killedInsideACall(strategy: string, holdAt: string): Promise<{ store: string; runId: string }> {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-interrupted-"));
  const store = join(dir, "runs.db");
  const log = join(dir, "calls.log");
  const a = spawnRun(["start", store, log, holdAt], { RUN_STRATEGY: strategy });
  const runId = (await a.line(/^run /)).slice(4);
  await a.line(new RegExp(`^holding ${holdAt}$`));
  // The held call is the last tool call started: its start is recorded once its event line is out.
  await expect.poll(() => a.lines.filter((line) => / tool-start$/.test(line)).length).toBeGreaterThanOrEqual(Number(holdAt));
  a.child.kill("SIGKILL");
  await a.exited;
  const b = spawnRun(["resume", store, log, "0", runId]);
  expect(await b.line(/^outcome /)).toBe("outcome final");
  return { store, runId };
}

describe("a call cut off by a kill", () => {
  it.each([
    ["todos", "2"],
    ["compiler", "1"],
  ])("with %s, ends in the log as interrupted once the run goes on, in the run view and in the call itself", async (strategy, holdAt) => {
    const { store, runId } = await killedInsideACall(strategy, holdAt);
    const { get } = await serve(store);
    const details = await get(`/api/runs/${runId}`);
    expect(details.run.status).toBe("final");
    expect(unended(details)).toEqual([]);
    const held = details.toolCalls.filter((call: { arguments: { text: string } }) => call.arguments.text === JSON.stringify({ n: Number(holdAt) }));
    const killed = held.find((call: { interrupted?: string }) => call.interrupted !== undefined);
    expect(killed).toMatchObject({ interrupted: "killed" });
    expect(killed.end).toBeGreaterThanOrEqual(killed.start);
    expect(killed.result).toBeUndefined();

    const opened = await get(`/api/runs/${runId}/tool-calls/${encodeURIComponent(killed.id)}?run=${encodeURIComponent(killed.runId)}`);
    expect(opened).toMatchObject({ interrupted: "killed", call: { id: killed.id } });
    expect(opened.result).toBeUndefined();
  });
});

describe("a model call cut off by Ctrl-C", () => {
  it("ends in the log as interrupted when the run stops, in the run view and in the call itself", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stepwise-interrupted-"));
    const store = join(dir, "runs.db");
    const { runs, get } = await serve(store);
    const silent = silentModel();
    const handle = await runs.start({ task: "wait", strategy: "notebook", model: silent.model, settings: { workspace: dir } });
    await silent.asked;
    handle.stop();
    expect((await handle.done).status).toBe("aborted");

    const details = await get(`/api/runs/${handle.id}`);
    expect(unended(details)).toEqual([]);
    expect(details.modelCalls).toEqual([expect.objectContaining({ n: 1, interrupted: "stopped" })]);
    const call = await get(`/api/runs/${handle.id}/calls/1`);
    expect(call).toMatchObject({ n: 1, interrupted: "stopped" });
    expect(call.response).toBeUndefined();
    expect(call.durationMs).toBeGreaterThanOrEqual(0);
  });
});
