import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalDecision } from "../core/approval.js";
import type { Message } from "../core/messages.js";
import type { ModelRequest } from "../core/model.js";
import { defineTool } from "../core/tool.js";
import { reactiveModel, type ScriptedTurn } from "../models/scripted.js";
import type { Checklist } from "./checklist.js";
import type { RunOutcome } from "./run-driver.js";
import { openRuns, type RunHandle, type Runs } from "./runs.js";
import type { ModelRole, StrategyName } from "./strategies.js";

// Workflows wait for the user as agents do: paused into the saved run, resumed by `runs.resume`
// from another handle on the same SQLite file (as another process would), whatever the strategy.

const dirs: string[] = [];
const opened: Runs[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runs) => runs.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

type Desk = { writes: string[]; reads: string[]; duringWrite?: () => Promise<void> };

/** `write_note` counts every execution; `read_note` only reads. */
function deskTools(desk: Desk) {
  return [
    defineTool({
      name: "write_note",
      description: "Writes a note.",
      parameters: z.object({ text: z.string() }),
      async execute({ text }) {
        desk.writes.push(text);
        await desk.duringWrite?.();
        return `wrote ${text}`;
      },
    }),
    defineTool({
      name: "read_note",
      description: "Reads a note.",
      parameters: z.object({ text: z.string() }),
      readOnly: true,
      execute: ({ text }) => {
        desk.reads.push(text);
        return `read ${text}`;
      },
    }),
  ];
}

const text = (messages: readonly Message[]) => messages.map((m) => m.content).join("\n");

/** What the run's last model saw of the write, as its answer: so the outcome shows what the workflow was told. */
function verdict(req: ModelRequest): string {
  const seen = text(req.messages);
  const about = /The user rejected this call: not now\./.test(seen)
    ? "rejected"
    : /Interrupted: the run stopped/.test(seen)
      ? "interrupted"
      : (/wrote (\w+)/.exec(seen)?.[0] ?? "nothing");
  return `${about}${/The user changed the plan before it ran/.test(seen) ? " (plan changed)" : ""}`;
}

/** An executor or subtask agent: reads or writes the note as its step says, then reports what the call answered. */
const executor = () =>
  reactiveModel((req): ScriptedTurn => {
    const last = req.messages.at(-1);
    if (last?.role === "tool") return `step saw: ${last.content}`;
    const step = /(?:Current step|Your subtask \(\d+ of \d+\)): (.*)/.exec(text(req.messages))?.[1] ?? "";
    return { toolCalls: [step.startsWith("Read") ? { name: "read_note", arguments: { text: "first" } } : { name: "write_note", arguments: { text: "hi" } }] };
  });

const REWOO_PLAN = JSON.stringify({
  steps: [
    { plan: "read first", tool: "read_note", input: { text: "first" } },
    { plan: "then write", tool: "write_note", input: { text: "hi" } },
  ],
});
const COMPILER_PLAN = ['{"tool": "read_note", "args": {"text": "first"}}', '{"tool": "write_note", "args": {"text": "hi"}}', '{"tool": "join"}'].join("\n");

/** The models of each strategy, by role. */
function brains(strategy: StrategyName, plannerSaw: string[], compilerPlan: string | readonly string[]): (role: ModelRole) => ReturnType<typeof reactiveModel> {
  /** Replies with `replies` in turn, the last one from then on. */
  const planner = (replies: string | readonly string[]) =>
    reactiveModel((req) => {
      plannerSaw.push(text(req.messages));
      const turns = typeof replies === "string" ? [replies] : replies;
      return turns[Math.min(plannerSaw.length, turns.length) - 1] as string;
    });
  const answerer = reactiveModel((req) => `final: ${verdict(req)}`);
  switch (strategy) {
    case "plan-tool": {
      const agent = reactiveModel((req): ScriptedTurn =>
        req.messages.at(-1)?.role === "tool" ? `final: ${verdict(req)}` : { toolCalls: [{ name: "plan", arguments: { task: "Write the note" } }] },
      );
      const roles = { agent, planner: planner('{"subtasks": ["Read the note", "Write the note"]}'), executor: executor() };
      return (role) => roles[role as keyof typeof roles];
    }
    case "plan-execute": {
      // The planner plans (its request has a system prompt); the replanner answers once the write was decided.
      const model = reactiveModel((req) => {
        if (req.messages[0]?.role === "system") return '{"steps": ["Read the note", "Write the note"]}';
        return verdict(req) === "nothing" ? '{"steps": ["Write the note"]}' : JSON.stringify({ answer: `final: ${verdict(req)}` });
      });
      const roles = { planner: model, executor: executor() };
      return (role) => roles[role as keyof typeof roles];
    }
    case "rewoo": {
      const roles = { planner: planner(REWOO_PLAN), executor: answerer, solver: answerer };
      return (role) => roles[role as keyof typeof roles];
    }
    default: {
      const joiner = reactiveModel((req) => JSON.stringify({ action: "finish", answer: `final: ${verdict(req)}` }));
      const roles = { planner: planner(compilerPlan), joiner };
      return (role) => roles[role as keyof typeof roles];
    }
  }
}

function setup(strategy: StrategyName, compilerPlan: string | readonly string[] = COMPILER_PLAN) {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-workflow-approval-"));
  dirs.push(dir);
  const desk: Desk = { writes: [], reads: [] };
  const plannerSaw: string[] = [];
  const models = brains(strategy, plannerSaw, compilerPlan);
  /** A new handle on the run file, as another process would open it. */
  const open = () => {
    const runs = openRuns({ store: join(dir, "runs.db"), models: () => models, tools: () => deskTools(desk) });
    opened.push(runs);
    return runs;
  };
  const start = async (approval: "writes" | "plan" | "all"): Promise<RunOutcome> =>
    (await open().start({ task: "Write the note", strategy, model: "test:desk", settings: { workspace: dir, approval } })).done;
  const resume = async (outcome: RunOutcome, decision: ApprovalDecision): Promise<RunOutcome> => {
    const call = outcome.pending?.[0];
    if (!call) throw new Error(`the run is ${outcome.status}, not waiting`);
    return (await open().resume(outcome.runId, { [call.id]: decision })).done;
  };
  return { dir, desk, plannerSaw, open, start, resume };
}

const WORKFLOWS = ["plan-tool", "plan-execute", "rewoo", "compiler"] as const;

describe.each(WORKFLOWS)("%s under --approval writes", (strategy) => {
  it("pauses on the write call with it pending, before it runs", async () => {
    const { desk, start, open } = setup(strategy);
    const paused = await start("writes");
    expect(paused).toMatchObject({ status: "awaiting-user", stopReason: "awaiting-user" });
    expect(paused.pending).toHaveLength(1);
    expect(paused.pending?.[0]).toMatchObject({ name: "write_note", kind: "approval" });
    expect(JSON.parse(paused.pending?.[0]?.arguments ?? "null")).toEqual({ text: "hi" });
    expect(desk.writes).toEqual([]);
    expect(await open().get(paused.runId)).toMatchObject({ status: "awaiting-user" });
  });

  it("gives a rejection to the workflow as the call's result, and finishes without writing", async () => {
    const { desk, start, resume } = setup(strategy);
    const done = await resume(await start("writes"), { action: "reject", reason: "not now" });
    expect(done).toMatchObject({ status: "final", text: "final: rejected" });
    expect(desk.writes).toEqual([]);
  });

  it("runs an approved call exactly once, resumed from another handle on the file", async () => {
    const { desk, start, resume } = setup(strategy);
    const done = await resume(await start("writes"), { action: "approve" });
    expect(done).toMatchObject({ status: "final", text: "final: wrote hi" });
    expect(desk.writes).toEqual(["hi"]);
  });

  it("runs an edited call with the user's arguments", async () => {
    const { desk, start, resume } = setup(strategy);
    const done = await resume(await start("writes"), { action: "edit", arguments: { text: "bye" } });
    expect(done).toMatchObject({ status: "final", text: "final: wrote bye" });
    expect(desk.writes).toEqual(["bye"]);
  });

  it("never makes an approved call twice: a run stopped while it ran goes on without making it again", async () => {
    const { desk, start, open } = setup(strategy);
    const paused = await start("writes");
    let started!: (handle: RunHandle) => void;
    const handle = new Promise<RunHandle>((resolve) => (started = resolve));
    // Stopped mid-call: the run saves where it is, and the call's result is never recorded.
    desk.duringWrite = async () => (await handle).stop();
    started(await open().resume(paused.runId, { [paused.pending?.[0]?.id as string]: { action: "approve" } }));
    expect((await (await handle).done).status).toBe("aborted");
    delete desk.duringWrite;
    expect(desk.writes).toEqual(["hi"]);
    const again = await (await open().resume(paused.runId)).done;
    expect(again.status).toBe("final");
    expect(desk.writes).toEqual(["hi"]);
  });
});

describe.each(["rewoo", "compiler"] as const)("%s under --approval plan", (strategy) => {
  const shownSteps = (outcome: RunOutcome) => (JSON.parse(outcome.pending?.[0]?.arguments ?? "{}") as { steps: string[] }).steps;

  it("pauses on the whole plan before any step runs, and runs it once approved", async () => {
    const { desk, start, resume } = setup(strategy);
    const paused = await start("plan");
    expect(paused.pending).toEqual([expect.objectContaining({ id: "plan-1", name: "plan", kind: "plan" })]);
    expect(shownSteps(paused)).toHaveLength(2);
    expect(shownSteps(paused)[1]).toContain("write_note");
    expect(desk.reads).toEqual([]);
    const done = await resume(paused, { action: "approve" });
    expect(done).toMatchObject({ status: "final", text: "final: wrote hi" });
    expect(desk).toEqual({ reads: ["first"], writes: ["hi"] });
  });

  it("re-plans with the reason after a rejection and asks again", async () => {
    const { desk, plannerSaw, start, resume } = setup(strategy);
    const again = await resume(await start("plan"), { action: "reject", reason: "Read the other note." });
    expect(again.pending).toEqual([expect.objectContaining({ id: "plan-2", kind: "plan" })]);
    expect(plannerSaw[1]).toContain("Their feedback: Read the other note.");
    expect(desk.reads).toEqual([]);
    expect(await resume(again, { action: "approve" })).toMatchObject({ status: "final", text: "final: wrote hi" });
  });

  it("runs the plan as the user edited it, and the answer is given the changes", async () => {
    const { desk, start, resume } = setup(strategy);
    const paused = await start("plan");
    const edited = shownSteps(paused)
      .filter((step) => !step.includes("read_note"))
      .map((step) => step.replace('"hi"', '"bye"'));
    const done = await resume(paused, { action: "edit", arguments: { steps: edited } });
    expect(done).toMatchObject({ status: "final", text: "final: wrote bye (plan changed)" });
    expect(desk).toEqual({ reads: [], writes: ["bye"] });
  });
});

describe.each([
  ["rewoo", { steps: ["Write the note now"] }, /Not a step: line 1, "Write the note now"\. Write each step as one line, "Plan: <why> #E1 = tool\[input\]"/],
  ["compiler", { steps: ['{"id": 1, "tool": "erase_all", "args": {}, "deps": []}'] }, /erase_all[\s\S]*Write each task as one JSON line/],
  ["plan-execute", { steps: [] }, /needs at least one step/],
] as const)("%s under --approval plan, given an edited plan that cannot run", (strategy, edit, problem) => {
  const shown = (outcome: RunOutcome) => JSON.parse(outcome.pending?.[0]?.arguments ?? "{}") as { steps: string[]; problem?: string };

  it("stays paused on the proposed plan, says what was wrong, and runs the plan once approved", async () => {
    const { desk, start, resume, open } = setup(strategy);
    const paused = await start("plan");
    const again = await resume(paused, { action: "edit", arguments: edit });
    expect(again).toMatchObject({ status: "awaiting-user" });
    expect(await open().get(paused.runId)).toMatchObject({ status: "awaiting-user" });
    expect(again.pending).toEqual([expect.objectContaining({ id: paused.pending?.[0]?.id, kind: "plan" })]);
    expect(shown(again).steps).toEqual(shown(paused).steps);
    expect(shown(again).problem).toMatch(problem);
    expect(shown(again).problem).toContain(`Your edited plan ${JSON.stringify(JSON.stringify(edit))} was not used`);
    expect(desk).toEqual({ reads: [], writes: [] });
    expect(await resume(again, { action: "approve" })).toMatchObject({ status: "final", text: "final: wrote hi" });
    expect(desk.writes).toEqual(["hi"]);
  });

  it("quotes a long edit only in part, and runs a good edit given after it", async () => {
    const { desk, start, resume } = setup(strategy);
    const paused = await start("plan");
    const long = { steps: strategy === "plan-execute" ? " ".repeat(5_000).split("") : [`${"x".repeat(5_000)}`] };
    const again = await resume(paused, { action: "edit", arguments: long });
    expect(shown(again).problem).toMatch(/more characters left out/);
    expect(shown(again).problem?.length).toBeLessThan(2_000);
    const edited = shown(again)
      .steps.filter((step) => !/read/i.test(step))
      .map((step) => step.replace('"hi"', '"bye"'));
    const done = await resume(again, { action: "edit", arguments: { steps: edited } });
    expect(done).toMatchObject({ status: "final" });
    expect(desk.reads).toEqual([]);
  });
});

describe("compiler under --approval plan, re-planned after a rejection", () => {
  it("asks nothing about a new plan without tasks, and answers from what is known", async () => {
    const { desk, start, resume } = setup("compiler", [COMPILER_PLAN, '{"tool": "join"}']);
    const done = await resume(await start("plan"), { action: "reject", reason: "Do not touch the notes." });
    expect(done).toMatchObject({ status: "final", text: "final: nothing" });
    expect(desk).toEqual({ reads: [], writes: [] });
  });
});

describe.each(WORKFLOWS)("%s resumed after a pause", (strategy) => {
  it("shows every step in its checklist, those finished before the pause included", async () => {
    const { start, resume, open } = setup(strategy);
    const paused = await start("writes");
    let pausedAt = 0;
    for await (const { seq } of open().events(paused.runId)) pausedAt = seq;
    await resume(paused, { action: "approve" });
    let first: Checklist | undefined;
    for await (const { event } of open().events(paused.runId, { after: pausedAt })) if (event.type === "checklist-updated") first ??= event.checklist;
    expect(first?.items.map((item) => [item.label.split(/[ (]/)[0]?.toLowerCase(), item.status])).toEqual([
      [strategy === "compiler" ? "read_note" : "read", "done"],
      [strategy === "compiler" ? "write_note" : strategy === "rewoo" ? "then" : "write", "in_progress"],
    ]);
  });
});

describe("compiler, while a task waits for the user", () => {
  it("lets tasks that do not need it run, starts none that does, and runs those once it is approved", async () => {
    const plan = [
      '{"tool": "write_note", "args": {"text": "hi"}}',
      '{"tool": "read_note", "args": {"text": "first"}}',
      '{"tool": "read_note", "args": {"text": "$1"}}',
      '{"tool": "join"}',
    ].join("\n");
    const { desk, start, resume } = setup("compiler", plan);
    const paused = await start("writes");
    expect(paused.pending?.map((call) => call.name)).toEqual(["write_note"]);
    expect(desk.reads).toEqual(["first"]);
    expect(await resume(paused, { action: "approve" })).toMatchObject({ status: "final" });
    expect(desk).toEqual({ writes: ["hi"], reads: ["first", "wrote hi"] });
  });
});
