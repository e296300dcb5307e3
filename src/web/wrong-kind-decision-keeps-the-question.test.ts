import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DecisionsError } from "../core/approval.js";
import type { ModelRequest } from "../core/model.js";
import { reactiveModel } from "../models/scripted.js";
import { openRuns, type Runs } from "../runs/runs.js";
import { startViewer, type Viewer } from "./viewer-server.js";

// The attack: `approve` for an ask_user question got 202, the run failed, and a later resume answered the
// question as "Interrupted…". Every way of deciding checks the kinds first and leaves the run paused.

let dir: string;
let runs: Runs;
let viewer: Viewer;

/** Asks the user once, then says what the answer was. */
const askingModel = () =>
  reactiveModel((req: ModelRequest) => {
    const answer = req.messages.find((m) => m.role === "tool" && m.name === "ask_user");
    return answer ? `told: ${answer.content}` : { toolCalls: [{ name: "ask_user", arguments: { question: "Which city?" }, id: "q1" }] };
  });

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "stepwise-decision-kinds-"));
  runs = openRuns({ store: join(dir, "stepwise.db"), models: () => askingModel, tools: () => [] });
  viewer = await startViewer({ runs });
});

afterEach(async () => {
  await viewer.close();
  await runs.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pausedOnQuestion(): Promise<string> {
  const run = await runs.start({ task: "Plan my trip", strategy: "todos", model: "test:asking", settings: { workspace: dir } });
  expect(await run.done).toMatchObject({ status: "awaiting-user", pending: [{ id: "q1", name: "ask_user", kind: "question" }] });
  return run.id;
}

const decide = async (runId: string, decisions: unknown) => {
  const response = await fetch(new URL(`/api/runs/${runId}/decisions`, viewer.url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decisions }),
  });
  return { status: response.status, body: (await response.json()) as { error?: string; status?: string } };
};

async function stillAsking(runId: string): Promise<void> {
  const details = (await (await fetch(new URL(`/api/runs/${runId}`, viewer.url))).json()) as { run: { status: string }; pending: { id: string; kind: string }[]; resuming: boolean };
  expect(details).toMatchObject({ run: { status: "awaiting-user" }, pending: [{ id: "q1", kind: "question" }], resuming: false });
  expect((await runs.get(runId))?.decided).toBe(false);
}

describe("a decision of the wrong kind for a paused call", () => {
  it("is refused by the viewer's API with 400 saying what a question takes, and the question stays for its answer", async () => {
    const runId = await pausedOnQuestion();
    for (const wrong of [{ action: "approve" }, { action: "edit", arguments: { question: "x" } }]) {
      const refused = await decide(runId, { q1: wrong });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe(`q1 (ask_user) is a question for the user: answer it with { action: "answer", text } or reject it, not "${wrong.action}".`);
      await stillAsking(runId);
    }

    expect(await decide(runId, { q1: { action: "answer", text: "Lisbon" } })).toEqual({ status: 202, body: { status: "resuming" } });
    await expect.poll(async () => (await runs.get(runId))?.status, { timeout: 10_000 }).toBe("final");
    expect((await runs.get(runId))?.answer).toBe("told: Lisbon");
  });

  it("is refused by runs.submitDecisions and runs.resume before anything is saved, and the question stays for its answer", async () => {
    const runId = await pausedOnQuestion();
    await expect(runs.submitDecisions(runId, { q1: { action: "approve" } })).rejects.toThrow(DecisionsError);
    await stillAsking(runId);
    await expect(runs.resume(runId, { q1: { action: "approve" } })).rejects.toThrow(
      'q1 (ask_user) is a question for the user: answer it with { action: "answer", text } or reject it, not "approve".',
    );
    await stillAsking(runId);
    expect((await runs.get(runId))?.lease).toBeNull();

    const resumed = await runs.resume(runId, { q1: { action: "answer", text: "Porto" } });
    expect(await resumed.done).toMatchObject({ status: "final", text: "told: Porto" });
  });
});
