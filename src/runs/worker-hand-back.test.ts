import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ChatModel, ModelRequest } from "../core/model.js";
import { defineTool } from "../core/tool.js";
import { reactiveModel, type ScriptedTurn } from "../models/scripted.js";
import type { LoggedEvent } from "../stores/run-store.js";
import { openRuns, type Runs } from "./runs.js";
import { workRuns } from "./run-worker.js";

const dirs: string[] = [];
const opened: Runs[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runs) => runs.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A promise and the function that settles it: the test opens it when it is ready. */
function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * A run that calls `note` with 1 and 2 (one call a turn), then answers. Model call `holdModel` and
 * note call `holdNote` tell `held` they started, then wait for `release`; every model call is counted.
 */
function fixture(hold: { model?: number; note?: number }) {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-hand-back-"));
  dirs.push(dir);
  const file = join(dir, "runs.db");
  const held = gate();
  const release = gate();
  const counts = { model: 0, notes: [] as number[] };
  const script = reactiveModel((req: ModelRequest): ScriptedTurn => {
    const made = req.messages.filter((m) => m.role === "assistant" && m.toolCalls?.length).length;
    return made < 2 ? { toolCalls: [{ name: "note", arguments: { n: made + 1 } }] } : "noted both";
  });
  const model: ChatModel = {
    id: "held",
    async generate(request) {
      const call = ++counts.model;
      if (call === hold.model) {
        held.open();
        await release.opened;
      }
      return script.generate(request);
    },
  };
  const note = defineTool({
    name: "note",
    description: "Notes a number.",
    parameters: z.object({ n: z.number() }),
    async execute({ n }) {
      counts.notes.push(n);
      if (n === hold.note) {
        held.open();
        await release.opened;
      }
      return `noted ${n}`;
    },
  });
  const runs = openRuns({ store: file, models: () => () => model, tools: () => [note] });
  opened.push(runs);
  const enqueue = () => runs.enqueue({ task: "note two", strategy: "todos", model: "test:held", settings: { workspace: dir } });
  return { runs, held, release, counts, enqueue };
}

/** The run's log as it stands (`runs.events` would follow a run left running). */
async function logged(runs: Runs, id: string): Promise<LoggedEvent["event"][]> {
  return (await runs.stores.runs.events(id, 0, 1000)).map(({ event }) => event);
}

/** Hands the runs back once `held` opens, then lets the held call return: the worker must wait for it. */
async function handBackWhileHeld(f: { runs: Runs; held: { opened: Promise<void> }; release: { open(): void } }): Promise<void> {
  const stop = new AbortController();
  const worker = workRuns(f.runs, { signal: stop.signal });
  await f.held.opened;
  stop.abort();
  f.release.open();
  await worker;
}

describe("a worker handing its runs back (the first SIGTERM) lets the step in flight finish", () => {
  it("a model call in flight finishes and is logged; the run is left running, its lease let go, and its resume does not call the model again", async () => {
    const f = fixture({ model: 2 });
    const id = await f.enqueue();
    await handBackWhileHeld(f);
    expect(f.counts.model).toBe(2);
    // The second turn's call was made too: the step ran to its end, checkpointed.
    expect(f.counts.notes).toEqual([1, 2]);
    expect(await f.runs.get(id)).toMatchObject({ status: "running", lease: null });
    const events = await logged(f.runs, id);
    expect(events.filter((e) => e.type === "model-end")).toHaveLength(2);
    expect(events.some((e) => e.type === "call-interrupted")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run-end", stopReason: "aborted" });

    await workRuns(f.runs, { signal: new AbortController().signal, once: true });
    expect(await f.runs.get(id)).toMatchObject({ status: "final", answer: "noted both" });
    // Three model calls in all, each once: the one in flight at the hand-back was not made again.
    expect(f.counts.model).toBe(3);
    expect(f.counts.notes).toEqual([1, 2]);
  });

  it("a tool call in flight finishes and its result is logged and kept; the resumed run goes on from it", async () => {
    const f = fixture({ note: 1 });
    const id = await f.enqueue();
    await handBackWhileHeld(f);
    expect(f.counts).toEqual({ model: 1, notes: [1] });
    expect(await f.runs.get(id)).toMatchObject({ status: "running", lease: null });
    const events = await logged(f.runs, id);
    expect(events.find((e) => e.type === "tool-end")).toMatchObject({ result: { text: "noted 1", isError: false } });
    expect(events.some((e) => e.type === "call-interrupted")).toBe(false);

    await workRuns(f.runs, { signal: new AbortController().signal, once: true });
    expect(await f.runs.get(id)).toMatchObject({ status: "final", answer: "noted both" });
    expect(f.counts).toEqual({ model: 3, notes: [1, 2] });
  });

  it("a resume's own signal still cuts a call in flight off: the run is aborted and the call recorded as stopped", async () => {
    const f = fixture({ model: 2 });
    const id = await f.enqueue();
    const stop = new AbortController();
    const handBack = new AbortController();
    const run = await f.runs.resume(id, undefined, { signal: stop.signal, handBack: handBack.signal });
    await f.held.opened;
    handBack.abort();
    stop.abort();
    const outcome = await run.done;
    f.release.open();
    // Cut off: the held call had not returned, and the hand-back keeps the run for another driver.
    expect(outcome).toMatchObject({ stopReason: "aborted", status: "running" });
    expect(f.counts.notes).toEqual([1]);
    const events = await logged(f.runs, id);
    expect(events.filter((e) => e.type === "model-end")).toHaveLength(1);
  });
});

describe("a workflow handed back stops between its steps, its step's agent after its own step", () => {
  it("plan-and-execute: the executor's model call in flight finishes and its call is made; the resumed run goes on with the same agent, calling nothing again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stepwise-hand-back-"));
    dirs.push(dir);
    const held = gate();
    const release = gate();
    const counts = { executor: 0, writes: 0 };
    const planner = reactiveModel((req) => (req.messages[0]?.role === "system" ? '{"steps": ["Write the note"]}' : '{"answer": "the note is written"}'));
    const script = reactiveModel((req): ScriptedTurn => {
      const last = req.messages.at(-1);
      return last?.role === "tool" ? `step saw: ${last.content}` : { toolCalls: [{ name: "write_note", arguments: {} }] };
    });
    const executor: ChatModel = {
      id: "executor",
      async generate(request) {
        if (++counts.executor === 1) {
          held.open();
          await release.opened;
        }
        return script.generate(request);
      },
    };
    const write = defineTool({
      name: "write_note",
      description: "Writes the note.",
      parameters: z.object({}),
      execute: () => `wrote note ${++counts.writes}`,
    });
    const runs = openRuns({ store: join(dir, "runs.db"), models: () => (role) => (role === "executor" ? executor : planner), tools: () => [write] });
    opened.push(runs);
    const id = await runs.enqueue({ task: "Write the note", strategy: "plan-execute", model: "test:desk", settings: { workspace: dir } });
    await handBackWhileHeld({ runs, held, release });
    // The executor's turn ran to its end (its call made), and it stopped before its next model call.
    expect(counts).toEqual({ executor: 1, writes: 1 });
    expect(await runs.get(id)).toMatchObject({ status: "running", lease: null });

    await workRuns(runs, { signal: new AbortController().signal, once: true });
    expect(await runs.get(id)).toMatchObject({ status: "final", answer: "the note is written" });
    expect(counts).toEqual({ executor: 2, writes: 1 });
  });
});

describe("a workflow whose own tool call is in flight at the hand-back", () => {
  /** `note` counts its calls by text; the first one holds until released. */
  function heldDesk() {
    const held = gate();
    const release = gate();
    const calls: string[] = [];
    const note = defineTool({
      name: "note",
      description: "Notes a text.",
      parameters: z.object({ text: z.string() }),
      async execute({ text }) {
        calls.push(text);
        if (calls.length === 1) {
          held.open();
          await release.opened;
        }
        return `noted ${text}`;
      },
    });
    return { held, release, calls, note };
  }

  const plans = {
    rewoo: {
      planner: JSON.stringify({ steps: [{ plan: "note a", tool: "note", input: { text: "a" } }, { plan: "note b", tool: "note", input: { text: "b" } }] }),
      answerer: "solver",
    },
    compiler: {
      planner: ['{"tool": "note", "args": {"text": "a"}}', '{"tool": "note", "args": {"text": "b"}, "deps": [1]}', '{"tool": "join"}'].join("\n"),
      answerer: "joiner",
    },
  } as const;

  for (const strategy of ["rewoo", "compiler"] as const) {
    it(`${strategy}: the call finishes and its result is kept; the next step waits for the resumed run, and no call is made twice`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "stepwise-hand-back-"));
      dirs.push(dir);
      const desk = heldDesk();
      const planner = reactiveModel(() => plans[strategy].planner);
      const answerer = reactiveModel((req) => {
        const answer = `saw ${[...req.messages.map((m) => m.content).join("\n").matchAll(/noted (\w)/g)].map((m) => m[1]).join(",")}`;
        return strategy === "compiler" ? JSON.stringify({ action: "finish", answer }) : answer;
      });
      const runs = openRuns({ store: join(dir, "runs.db"), models: () => (role) => (role === "planner" ? planner : answerer), tools: () => [desk.note] });
      opened.push(runs);
      const id = await runs.enqueue({ task: "Note a, then b", strategy, model: "test:desk", settings: { workspace: dir } });
      await handBackWhileHeld({ runs, held: desk.held, release: desk.release });
      expect(desk.calls).toEqual(["a"]);
      expect(await runs.get(id)).toMatchObject({ status: "running", lease: null });

      await workRuns(runs, { signal: new AbortController().signal, once: true });
      expect(await runs.get(id)).toMatchObject({ status: "final", answer: "saw a,b" });
      expect(desk.calls).toEqual(["a", "b"]);
    });
  }
});
