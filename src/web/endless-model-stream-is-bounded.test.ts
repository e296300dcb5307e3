import { mkdtempSync, rmSync } from "node:fs";
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../core/events.js";
import { ModelError } from "../models/model-error.js";
import { openAICompatibleModel, type OpenAICompatibleOptions } from "../models/openai-compatible.js";
import { openSse, startTestServer, type TestServer } from "../models/test-support/http-server.js";
import { openRuns, type Runs } from "../runs/runs.js";
import { startViewer, type Viewer } from "./viewer-server.js";

// The attack: an OpenAI-compatible endpoint that streams text deltas forever. Before, one event row per
// delta (234,495 rows, 48 MB in 75 s) and a run left `running`.

const DELTA = "spam ";

type Piece = { content?: string; tool_calls?: unknown[] };

/** Streams `piece` as chat completion chunks until the client hangs up, as fast as the connection takes them, or one per `everyMs`. */
function streamForever(piece: Piece, everyMs?: number) {
  return async (res: ServerResponse) => {
    const sse = openSse(res);
    const chunk = { data: { id: "c", object: "chat.completion.chunk", created: 1, model: "endless", choices: [{ index: 0, delta: piece, finish_reason: null }] } };
    let closed = false;
    res.on("close", () => (closed = true));
    while (!closed) {
      sse.send(everyMs === undefined ? Array.from({ length: 200 }, () => chunk) : [chunk]);
      if (everyMs !== undefined) await new Promise((resolve) => setTimeout(resolve, everyMs));
      else if (res.writableNeedDrain) {
        // The losing wait's listeners go too: left behind, one per chunk, they piled up on the response.
        const waited = new AbortController();
        await Promise.race([once(res, "drain", { signal: waited.signal }), once(res, "close", { signal: waited.signal })]).finally(() => waited.abort());
      }
    }
  };
}

let dir: string;
let server: TestServer | undefined;
let runs: Runs | undefined;
let viewer: Viewer | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "stepwise-endless-stream-"));
});

afterEach(async () => {
  await viewer?.close();
  await runs?.close();
  await server?.close();
  viewer = runs = server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A todos run on a model behind `handler`, to its end: the error it failed with and what its log kept. */
async function runAgainst(handler: ReturnType<typeof streamForever>, limits: Pick<OpenAICompatibleOptions, "maxResponseChars" | "maxResponseMs">) {
  server = await startTestServer(handler);
  const model = openAICompatibleModel({ model: "endless", apiKey: "test-key", baseURL: `${server.url}/v1`, retryBaseDelayMs: 1, ...limits });
  runs = openRuns({ store: join(dir, "stepwise.db"), models: () => () => model, tools: () => [] });
  const run = await runs.start({ task: "Say something", strategy: "todos", model: "test:endless", settings: { workspace: dir } });
  const failure = await run.done.then(
    () => undefined,
    (error: unknown) => error,
  );
  const logged: AgentEvent[] = [];
  for await (const { event } of runs.events(run.id)) logged.push(event);
  return { runId: run.id, failure, logged, record: await runs.get(run.id) };
}

const textOf = (events: AgentEvent[]) => events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");

describe("a model endpoint that streams forever", () => {
  it("is cut off at maxResponseChars with a clear error the run records, once (no retry), and the log keeps the text in a few rows", async () => {
    const { runId, failure, logged, record } = await runAgainst(streamForever({ content: DELTA }), { maxResponseChars: 50_000 });

    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).kind).toBe("response-limit");
    const message = 'openai model "endless" failed after 1 attempt (response-limit; not retried): the response held more than 50000 characters of text and tool-call arguments, the most one response may hold (maxResponseChars)';
    expect((failure as Error).message).toBe(message);
    expect(server?.requests).toHaveLength(1);
    expect(record).toMatchObject({ status: "failed", lease: null });
    expect(logged.filter((e) => e.type === "run-error").map((e) => e.type === "run-error" && e.message)).toEqual([message]);

    // Every character that reached the agent is kept, in batches: 10,000 deltas, a few dozen rows.
    const streamed = DELTA.repeat(50_000 / DELTA.length);
    expect(textOf(logged)).toBe(streamed);
    expect(logged.filter((e) => e.type === "text-delta").length).toBeLessThan(200);
    expect(logged.length).toBeLessThan(250);

    // The viewer shows what was streamed for the call that never answered.
    viewer = await startViewer({ runs: runs! });
    const call = (await (await fetch(new URL(`/api/runs/${runId}/calls/1`, viewer.url))).json()) as { response?: unknown; streamedText?: string };
    expect(call.response).toBeUndefined();
    expect(call.streamedText).toBe(streamed);
  });

  it("is cut off at maxResponseMs when it trickles on without ever finishing, and not retried", async () => {
    const { failure, logged, record } = await runAgainst(streamForever({ content: DELTA }, 5), { maxResponseMs: 300 });

    expect((failure as ModelError).kind).toBe("response-limit");
    expect((failure as Error).message).toMatch(/^openai model "endless" failed after 1 attempt \(response-limit; not retried\): the response was still coming after 300 ms, the most one response may take \(maxResponseMs\)$/);
    expect(server?.requests).toHaveLength(1);
    expect(record?.status).toBe("failed");
    expect(textOf(logged)).toMatch(/^(spam )+$/);
  });

  it("is cut off when what never ends is a tool call's arguments (no text), and not retried", async () => {
    const piece = { tool_calls: [{ index: 0, id: "call-1", type: "function", function: { name: "write_todos", arguments: '{"todos":[' } }] };
    const { failure, record } = await runAgainst(streamForever(piece), { maxResponseChars: 100_000 });

    expect((failure as ModelError).kind).toBe("response-limit");
    expect((failure as Error).message).toContain("the response held more than 100000 characters of text and tool-call arguments");
    expect(server?.requests).toHaveLength(1);
    expect(record?.status).toBe("failed");
  });
});
