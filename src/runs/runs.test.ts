import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ModelRequest } from "../core/model.js";
import { defineTool } from "../core/tool.js";
import { reactiveModel, type ScriptedTurn } from "../models/scripted.js";
import { RunBusyError, RunLeaseLostError } from "../stores/run-store.js";
import { openRuns, type Runs } from "./runs.js";

const dirs: string[] = [];
const opened: Runs[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runs) => runs.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshFile(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-runs-"));
  dirs.push(dir);
  return { dir, file: join(dir, "stepwise.db") };
}

function open(file: string, extra: Partial<Parameters<typeof openRuns>[0]> = {}): Runs {
  const runs = openRuns({ store: file, ...extra });
  opened.push(runs);
  return runs;
}

/** Calls `note` with 1, 2, 3 (one call a turn), then answers; each turn follows from the calls already in memory. */
function countingModel(calls: number) {
  return reactiveModel((req: ModelRequest): ScriptedTurn => {
    const made = req.messages.filter((m) => m.role === "assistant" && m.toolCalls?.length).length;
    return made < calls ? { toolCalls: [{ name: "note", arguments: { n: made + 1 } }] } : `noted ${calls}`;
  });
}

function noteTool(seen: number[], onCall?: (n: number) => Promise<void>) {
  return defineTool({
    name: "note",
    description: "Notes a number.",
    parameters: z.object({ n: z.number() }),
    async execute({ n }) {
      seen.push(n);
      await onCall?.(n);
      return `noted ${n}`;
    },
  });
}

describe("openRuns", () => {
  it("starts a run, records its events and checkpoint, and streams the backlog to a later reader in order", async () => {
    const { dir, file } = freshFile();
    const runs = open(file);
    const seen: number[] = [];
    const run = await runs.start({ task: "note three", strategy: "todos", model: countingModel(3), tools: [noteTool(seen)], settings: { workspace: dir } });
    const outcome = await run.done;
    expect(outcome).toMatchObject({ runId: run.id, status: "final", stopReason: "final", text: "noted 3" });
    expect(seen).toEqual([1, 2, 3]);
    expect(await runs.get(run.id)).toMatchObject({ status: "final", answer: "noted 3", strategy: "todos", lease: null });

    const reader = open(file);
    const types: string[] = [];
    let last = 0;
    for await (const { seq, event } of reader.events(run.id)) {
      expect(seq).toBe(last + 1);
      last = seq;
      types.push(event.type);
    }
    expect(types[0]).toBe("run-start");
    expect(types.at(-1)).toBe("run-end");
    expect(types.filter((t) => t === "tool-end")).toHaveLength(3);
  });

  it("streams a run live to a reader in another connection, and ends when the run stops", async () => {
    const { dir, file } = freshFile();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const runs = open(file);
    const run = await runs.start({
      task: "note two",
      strategy: "todos",
      model: countingModel(2),
      tools: [noteTool([], async (n) => (n === 2 ? gate : undefined))],
      settings: { workspace: dir },
    });
    const reader = open(file);
    const types: string[] = [];
    for await (const { event } of reader.events(run.id)) {
      types.push(event.type);
      // The reader saw the first tool's result while the run waits inside the second: it is live.
      if (event.type === "tool-start" && event.call.arguments.includes("2")) release();
    }
    expect(types.at(-1)).toBe("run-end");
    expect(types.filter((t) => t === "tool-end")).toHaveLength(2);
  });

  it("refuses a second driver while the first holds the run, naming the holder", async () => {
    const { dir, file } = freshFile();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const runs = open(file, { holder: "first-driver" });
    const run = await runs.start({
      task: "note one",
      strategy: "todos",
      model: countingModel(1),
      tools: [noteTool([], async () => {
        entered();
        await gate;
      })],
      settings: { workspace: dir },
    });
    await inside;
    const other = open(file, { holder: "second-driver" });
    await expect(other.resume(run.id)).rejects.toThrow(new RunBusyError(run.id, "first-driver"));
    release();
    expect((await run.done).status).toBe("final");
  });

  it("stops a driver whose lease was taken over: its writes are refused, and nothing it did after is recorded", async () => {
    const { dir, file } = freshFile();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const seen: number[] = [];
    const runs = open(file, { holder: "stale-driver", leaseMs: 60_000 });
    const run = await runs.start({
      task: "note two",
      strategy: "todos",
      model: countingModel(2),
      tools: [noteTool(seen, async (n) => {
        if (n !== 1) return;
        entered();
        await gate;
      })],
      settings: { workspace: dir },
    });
    await inside;
    // Another process takes over, as if the first one's lease had run out while it was paused.
    const { SqliteRunStore } = await import("../stores/sqlite-run-store.js");
    const raw = new SqliteRunStore(file);
    const record = await raw.getRun(run.id);
    expect(record?.lease?.holder).toBe("stale-driver");
    const db = (await import("../stores/sqlite-database.js")).openSqliteDatabase(file);
    db.prepare("UPDATE runs SET lease_expires = 0 WHERE id = ?").run(run.id);
    db.close();
    const taken = await raw.acquireLease(run.id, "new-driver", 60_000);
    release();
    await expect(run.done).rejects.toThrow(new RunLeaseLostError(run.id, "stale-driver", "new-driver"));
    // The stale driver never ran the second call: the checkpoint before it was refused.
    expect(seen).toEqual([1]);
    expect(await raw.getRun(run.id)).toMatchObject({ status: "running", lease: { holder: "new-driver" } });
    await raw.releaseLease(taken);
    await raw.close();
  });

  it("pauses for approval, then resumes with decisions in another Runs, which rebuilds the session from the store", async () => {
    const { dir, file } = freshFile();
    const seen: number[] = [];
    const tools = () => [noteTool(seen)];
    const models = () => () => countingModel(1);
    const runs = open(file, { models, tools });
    const run = await runs.start({ task: "note one", strategy: "todos", model: "test:counting", settings: { workspace: dir, approval: "writes" } });
    const paused = await run.done;
    expect(paused).toMatchObject({ status: "awaiting-user", pending: [{ name: "note" }] });
    expect(seen).toEqual([]);
    const callId = paused.pending?.[0]?.id ?? "";

    const elsewhere = open(file, { models, tools });
    const again = await elsewhere.resume(run.id);
    expect(await again.done).toMatchObject({ status: "awaiting-user" });
    await elsewhere.submitDecisions(run.id, { [callId]: { action: "approve" } });
    expect(await elsewhere.get(run.id)).toMatchObject({ decided: true });
    const resumed = await elsewhere.resume(run.id);
    expect(await resumed.done).toMatchObject({ status: "final", text: "noted 1" });
    expect(seen).toEqual([1]);
  });

  it("leaves a run as it was when a resumer lacks what it needs (its model), for one that has it", async () => {
    const { dir, file } = freshFile();
    const seen: number[] = [];
    const tools = () => [noteTool(seen)];
    const runs = open(file, { models: () => () => countingModel(2), tools });
    const run = await runs.start({ task: "note two", strategy: "todos", model: "test:counting", settings: { workspace: dir, maxSteps: 1 } });
    expect(await run.done).toMatchObject({ status: "max-steps" });

    const keyless = open(file, {
      models: () => {
        throw new Error("no API key for test:counting here");
      },
      tools,
    });
    await expect(keyless.resume(run.id)).rejects.toThrow("no API key for test:counting here");
    expect(await keyless.get(run.id)).toMatchObject({ status: "max-steps", lease: null });

    const resumed = await open(file, { models: () => () => countingModel(2), tools }).resume(run.id, undefined, { settings: { maxSteps: 10 } });
    expect(await resumed.done).toMatchObject({ status: "final", text: "noted 2" });
    expect(seen).toEqual([1, 2]);
  });
});

describe("runs.close", () => {
  /** A run of three calls whose first call says when it runs: close is called while the run is under way. */
  async function underWay(runs: Runs, dir: string) {
    const seen: number[] = [];
    let calledFirst!: () => void;
    const first = new Promise<void>((resolve) => (calledFirst = resolve));
    const tool = noteTool(seen, async (n) => void (n === 1 && calledFirst()));
    const run = await runs.start({ task: "note three", strategy: "todos", model: countingModel(3), tools: [tool], settings: { workspace: dir } });
    await first;
    return { run, seen };
  }

  it("waits for a run still being driven to stop by itself, then closes", async () => {
    const { dir, file } = freshFile();
    const runs = openRuns({ store: file });
    const { run, seen } = await underWay(runs, dir);
    await runs.close();
    expect(await run.done).toMatchObject({ status: "final", text: "noted 3" });
    expect(seen).toEqual([1, 2, 3]);
  });

  it("with { stop: true }, stops it at once, state saved, for a later resume to finish", async () => {
    const { dir, file } = freshFile();
    const runs = openRuns({ store: file });
    const { run, seen } = await underWay(runs, dir);
    await runs.close({ stop: true });
    expect(await run.done).toMatchObject({ status: "aborted" });
    expect(seen).toEqual([1]);

    const later = open(file, { models: () => () => countingModel(3), tools: () => [noteTool(seen)] });
    const resumed = await later.resume(run.id);
    expect(await resumed.done).toMatchObject({ status: "final", text: "noted 3" });
    expect(seen).toEqual([1, 2, 3]);
  });

  it("refuses to start or resume once closed", async () => {
    const { dir, file } = freshFile();
    const runs = openRuns({ store: file });
    await runs.close();
    await expect(runs.start({ task: "t", strategy: "todos", model: countingModel(1), settings: { workspace: dir } })).rejects.toThrow(
      "these runs were closed (runs.close()); open them again with openRuns to start or resume a run",
    );
    await expect(runs.resume("any")).rejects.toThrow("these runs were closed");
  });
});
