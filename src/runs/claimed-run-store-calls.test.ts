import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { reactiveModel } from "../models/scripted.js";
import { openRuns, type Runs } from "./runs.js";

const opened: { runs: Runs; dir: string }[] = [];
afterEach(async () => {
  for (const { runs, dir } of opened.splice(0)) {
    await runs.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

it("drives a claimed run from what the claim read: its settings, checkpoint and (empty) log are not read again", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-claim-read-"));
  const model = reactiveModel((req) => `answered ${req.messages.filter((m) => m.role === "user").length} task`);
  const runs = openRuns({ store: join(dir, "runs.db"), models: () => () => model, tools: () => [] });
  opened.push({ runs, dir });
  const id = await runs.enqueue({ task: "say hello", strategy: "react", model: "scripted", settings: { workspace: dir } });
  const store = runs.stores.runs;
  const reads = [vi.spyOn(store, "loadSettings"), vi.spyOn(store, "loadCheckpoint"), vi.spyOn(store, "events")];

  const claimed = await runs.claimNext();
  expect(claimed?.run.id).toBe(id);
  expect(await claimed?.done).toMatchObject({ status: "final", text: "answered 1 task" });
  for (const read of reads) expect(read).not.toHaveBeenCalled();
  expect(await store.getRun(id)).toMatchObject({ status: "final", answer: "answered 1 task" });
});

it("lets a finished run go with its last update: one write, no release of its own", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-claim-release-"));
  const runs = openRuns({ store: join(dir, "runs.db"), models: () => () => reactiveModel(() => "done"), tools: () => [] });
  opened.push({ runs, dir });
  const id = await runs.enqueue({ task: "finish", strategy: "react", model: "scripted", settings: { workspace: dir } });
  const store = runs.stores.runs;
  const updates = vi.spyOn(store, "updateRun");
  const releases = vi.spyOn(store, "releaseLease");

  const claimed = await runs.claimNext();
  expect(await claimed?.done).toMatchObject({ status: "final" });
  expect(updates).toHaveBeenCalledTimes(1);
  expect(updates.mock.calls[0]?.[1]).toMatchObject({ status: "final", release: true });
  expect(releases).not.toHaveBeenCalled();
  expect(await store.getRun(id)).toMatchObject({ status: "final", lease: null });
});
