import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { modelsFor } from "../cli/model-option.js";
import { runCommand } from "../cli/run-command.js";
import type { Message } from "../core/messages.js";
import type { ChatModel, Usage } from "../core/model.js";
import { defineTool } from "../core/tool.js";
import { estimateCostUsd } from "../models/model-prices.js";
import { scriptedModel, type ScriptedTurn } from "../models/scripted.js";
import { openRuns, type Runs } from "../runs/runs.js";
import { startViewer, type Viewer } from "./viewer-server.js";

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

let home: string;
let workspace: string;
let database: string;
let runs: Runs;
let viewer: Viewer;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "stepwise-inspect-"));
  workspace = join(home, "workspace");
  mkdirSync(workspace);
  database = join(home, "stepwise.db");
  runs = openRuns({ store: database, models: modelsFor });
  viewer = await startViewer({ runs });
});

afterEach(async () => {
  await viewer.close();
  await runs.close();
  rmSync(home, { recursive: true, force: true });
});

const get = async (path: string) => {
  const response = await fetch(new URL(path, viewer.url));
  return { status: response.status, body: (await response.json()) as any };
};

/** A scripted model that remembers each request as it was sent, tail mark included. */
function recordingModel(id: string, turns: ScriptedTurn[]) {
  const model = scriptedModel(turns, { id });
  const sent: { messages: Message[]; ephemeralFrom: number | undefined }[] = [];
  const usages: Usage[] = [];
  const recording: ChatModel = {
    id,
    async generate(req) {
      sent.push({ messages: structuredClone(req.messages), ephemeralFrom: req.ephemeralFrom });
      const response = await model.generate(req);
      if (response.usage) usages.push(response.usage);
      return response;
    },
  };
  return { recording, sent, usages };
}

const pages = defineTool({
  name: "fetch_page",
  description: "Fetches a page of a long document.",
  parameters: z.object({ page: z.number() }),
  readOnly: true,
  execute: ({ page }) => `page ${page}: ${"lorem ipsum dolor sit amet ".repeat(60)}`,
});
const todos = (...statuses: string[]) => ({ toolCalls: [{ name: "write_todos", arguments: { todos: statuses.map((status, i) => ({ content: `read part ${i + 1}`, status })) } }] });
const fetchPage = (page: number) => ({ toolCalls: [{ name: "fetch_page", arguments: { page } }] });

async function todosRun(id: string): Promise<{ runId: string; sent: { messages: Message[]; ephemeralFrom: number | undefined }[]; usages: Usage[] }> {
  const turns: ScriptedTurn[] = [
    todos("in_progress", "pending", "pending"),
    fetchPage(1),
    fetchPage(2),
    todos("completed", "in_progress", "pending"),
    fetchPage(3),
    fetchPage(4),
    todos("completed", "completed", "in_progress"),
    fetchPage(5),
    todos("completed", "completed", "completed"),
    "Read all three parts.",
  ];
  const { recording, sent, usages } = recordingModel(id, turns);
  const handle = await runs.start({ task: "Read the document", strategy: "todos", model: recording, tools: [pages], settings: { workspace, contextBudget: 1500 } });
  expect((await handle.done).status).toBe("final");
  return { runId: handle.id, sent, usages };
}

describe("a model call, opened", () => {
  it("is rebuilt from the log exactly as the model received it, its ephemeral tail marked, across context folding", async () => {
    const { runId, sent } = await todosRun("scripted:reader");
    const details = await get(`/api/runs/${runId}`);
    expect(details.body.folds.length).toBeGreaterThan(0);
    // Folding rewrote memory: some request is shorter than the one before it.
    const sizes = sent.map((request) => request.messages.length);
    expect(sizes.some((size, i) => i > 0 && size < sizes[i - 1]!)).toBe(true);
    expect(details.body.modelCalls).toHaveLength(sent.length);

    for (const [i, request] of sent.entries()) {
      const call = await get(`/api/runs/${runId}/calls/${i + 1}`);
      expect(call.status).toBe(200);
      expect(call.body.messages).toEqual(request.messages);
      expect(call.body.ephemeralFrom).toBe(request.ephemeralFrom);
    }
    // The list is in front of the model where it wrote it (the todo list recites it at the tail only
    // when that copy sank far back), and where the ephemeral tail starts comes back as it was.
    const third = (await get(`/api/runs/${runId}/calls/3`)).body;
    expect(JSON.stringify(third.messages)).toContain("read part 1");
    expect(third.ephemeralFrom).toBe(sent[2]?.ephemeralFrom);
    expect((await get(`/api/runs/${runId}/calls/${sent.length + 1}`)).status).toBe(404);
    expect((await get(`/api/runs/${runId}/calls/zero`)).body.error).toMatch(/numbered from 1/);
    expect(await get(`/api/runs/${runId}/tool-calls/%E0%A4%A`)).toEqual({ status: 400, body: { error: '"%E0%A4%A" is not a validly escaped path segment' } });
  });

  it("counts tokens and the estimated cost per call and per run at list prices, and shows no cost for a model without one", async () => {
    const priced = await todosRun("openai:gpt-4o-mini");
    const details = (await get(`/api/runs/${priced.runId}`)).body;
    const expected = priced.usages.map((usage) => estimateCostUsd("openai:gpt-4o-mini", usage)!);
    expect(details.modelCalls.map((call: { costUsd: number }) => call.costUsd)).toEqual(expected);
    expect(details.totals.costUsd).toBeCloseTo(expected.reduce((a, b) => a + b, 0), 12);
    expect(details.totals.inputTokens).toBe(priced.usages.reduce((sum, usage) => sum + usage.inputTokens, 0));
    expect(details.totals.unpricedCalls).toBe(0);
    expect((await get(`/api/runs/${priced.runId}/calls/2`)).body.costUsd).toBe(expected[1]);

    const unpriced = await todosRun("scripted:reader");
    const free = (await get(`/api/runs/${unpriced.runId}`)).body;
    expect(free.totals.costUsd).toBeUndefined();
    expect(free.totals.unpricedCalls).toBe(unpriced.usages.length);
    expect(free.totals.outputTokens).toBeGreaterThan(0);
    expect(free.modelCalls.every((call: { costUsd?: number }) => call.costUsd === undefined)).toBe(true);
  });
});

describe("a tool call, opened", () => {
  it("has its whole arguments and result, and a rewrite knows the content the run wrote before", async () => {
    const long = "x".repeat(2000);
    const writes: ScriptedTurn[] = [
      { toolCalls: [{ id: "w1", name: "write_file", arguments: { path: "notes.md", content: `one\ntwo\n${long}` } }] },
      { toolCalls: [{ id: "e1", name: "edit_file", arguments: { path: "notes.md", old_text: "two", new_text: "TWO" } }] },
      { toolCalls: [{ id: "w2", name: "write_file", arguments: { path: "notes.md", content: "one\nthree\n" } }] },
      "done",
    ];
    const handle = await runs.start({ task: "Write notes", strategy: "todos", model: recordingModel("scripted:writer", writes).recording, settings: { workspace } });
    await handle.done;
    const listed = (await get(`/api/runs/${handle.id}`)).body;
    const first = listed.toolCalls.find((call: { id: string }) => call.id === "w1");
    expect(first.arguments.cut).toBe(true);

    const w1 = (await get(`/api/runs/${handle.id}/tool-calls/w1`)).body;
    expect(JSON.parse(w1.call.arguments).content).toBe(`one\ntwo\n${long}`);
    expect(w1.fileBefore).toBeNull();
    expect(w1.result.isError).toBe(false);
    const w2 = (await get(`/api/runs/${handle.id}/tool-calls/w2`)).body;
    expect(w2.fileBefore).toBe(`one\nTWO\n${long}`);
    expect((await get(`/api/runs/${handle.id}/tool-calls/nope`)).status).toBe(404);
  });
});

describe("GET /api/runs", () => {
  it("filters by status, strategy, model and text, and refuses an unknown status or strategy naming those accepted", async () => {
    const cli = (strategy: string, approval = "none") =>
      runCommand(`Survey with ${strategy}`, { strategy, model: "scripted:demo", workspace, database, approval }, { stdout: quiet(), stderr: quiet() });
    expect(await cli("compiler")).toBe(0);
    expect(await cli("todos")).toBe(0);
    expect(await cli("notebook", "plan")).toBe(3);
    const ids = async (query: string) => ((await get(`/api/runs${query}`)).body as { task: string }[]).map((run) => run.task).sort();

    expect(await ids("")).toHaveLength(3);
    expect(await ids("?strategy=compiler")).toEqual(["Survey with compiler"]);
    expect(await ids("?strategy=compiler,todos")).toEqual(["Survey with compiler", "Survey with todos"]);
    expect(await ids("?status=awaiting-user")).toEqual(["Survey with notebook"]);
    expect(await ids("?status=finished&strategy=notebook")).toEqual([]);
    expect(await ids("?model=scripted:demo&q=TODOS")).toEqual(["Survey with todos"]);
    expect(await ids("?model=openai:gpt-4o")).toEqual([]);

    const bad = await get("/api/runs?strategy=graph");
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/unknown strategy "graph"; use one or more of notebook, tasks, todos/);
    expect((await get("/api/runs?status=done")).body.error).toMatch(/unknown status "done"; use one or more of running/);
  });
});
