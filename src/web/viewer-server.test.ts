import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { once } from "node:events";
import { request, type IncomingMessage } from "node:http";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../core/events.js";
import { runCommand } from "../cli/run-command.js";
import { modelsFor } from "../cli/model-option.js";
import { openRuns, type Runs } from "../runs/runs.js";
import { openSqliteDatabase } from "../stores/sqlite-database.js";
import { SqliteRunStore } from "../stores/sqlite-run-store.js";
import { startViewer, type Viewer } from "./viewer-server.js";
import { bulkyEvent } from "./test-support/bulky-event.js";

const quiet = () => new Writable({ write: (_chunk, _encoding, done) => done() });

let home: string;
let workspace: string;
let database: string;
let viewer: Viewer;
let runs: Runs;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "stepwise-viewer-"));
  workspace = join(home, "workspace");
  mkdirSync(workspace);
  writeFileSync(join(workspace, "notes.md"), "Notes\nline two\n");
  database = join(home, "stepwise.db");
  runs = openRuns({ store: database, models: modelsFor });
  viewer = await startViewer({ runs });
});

afterEach(async () => {
  await viewer.close();
  await runs.close();
});

async function run(strategy: string, approval = "none"): Promise<string> {
  await runCommand("Survey the workspace", { strategy, model: "scripted:demo", workspace, database, approval }, { stdout: quiet(), stderr: quiet() });
  return (await runs.list(1))[0]!.id;
}

const get = async (path: string) => {
  const response = await fetch(new URL(path, viewer.url));
  return { status: response.status, body: (await response.json()) as any };
};

const post = async (path: string, body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) => {
  const response = await fetch(new URL(path, viewer.url), { method: "POST", headers, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
};

type Streamed = { id: string; event: AgentEvent };

/** Reads Server-Sent Events until `until` holds, then hangs up. */
async function readEvents(path: string, until: (events: Streamed[]) => boolean, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(new URL(path, viewer.url), { headers, signal: controller.signal });
  const events = await collectEvents(response, until);
  controller.abort();
  return events;
}

async function collectEvents(response: Response, until: (events: Streamed[]) => boolean): Promise<Streamed[]> {
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const events: Streamed[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (id && data) events.push({ id, event: JSON.parse(data) as AgentEvent });
    }
    if (until(events)) break;
  }
  return events;
}

describe("the viewer's JSON endpoints", () => {
  it("lists runs newest first and shows one run's checklist, tool calls and answer", async () => {
    const first = await run("tasks");
    const second = await run("notebook");
    const runs = await get("/runs");
    expect(runs.body.map((r: { id: string }) => r.id)).toEqual([second, first]);

    const { body } = await get(`/runs/${first}`);
    expect(body.run).toMatchObject({ id: first, status: "final", strategy: "tasks" });
    expect(body.run.answer).toMatch(/wrote report\.md/);
    expect(body.checklist.kind).toBe("tasks");
    expect(body.checklist.items.map((i: { status: string }) => i.status)).toEqual(["done", "done", "done"]);
    expect(body.checklist.items[1].blockedBy).toEqual(["1"]);
    expect(body.toolCalls.map((c: { name: string }) => c.name)).toContain("write_file");
    expect(body.toolCalls.every((c: { result?: unknown }) => c.result)).toBe(true);
    expect(body.pending).toEqual([]);
    expect(body.lastSeq).toBeGreaterThan(10);
  });

  it("serves the notebook's plans of a run", async () => {
    const id = await run("notebook");
    const { body } = await get(`/runs/${id}/plans`);
    expect(body).toHaveLength(1);
    expect(body[0]).toMatchObject({ name: "Workspace report", state: "done" });
  });

  it("answers an unknown run or path with 404 and a reason", async () => {
    expect(await get("/runs/nope")).toEqual({ status: 404, body: { error: "no run nope" } });
    expect((await get("/elsewhere")).status).toBe(404);
  });

  it("serves the page and its built module with every module that one imports, and nothing else of the package", async () => {
    const page = await fetch(viewer.url);
    expect(await page.text()).toContain('<script type="module" src="/assets/web/page/main.js">');
    const served = new Set<string>();
    const visit = async (url: URL): Promise<void> => {
      if (served.has(url.pathname)) return;
      served.add(url.pathname);
      const script = await fetch(url);
      expect(script.status, url.pathname).toBe(200);
      expect(script.headers.get("content-type")).toMatch(/javascript/);
      for (const match of (await script.text()).matchAll(/^import [^;]*?from "([^"]+)"/gm)) await visit(new URL(match[1]!, url));
    };
    await visit(new URL("/assets/web/page/main.js", viewer.url));
    expect(served).toContain("/assets/web/page/timeline-view.js");
    expect(served).toContain("/assets/models/model-prices.js");
    for (const path of ["/assets/web/viewer-server.js", "/assets/web/page/../viewer-server.js", "/assets/runs/runs.js", "/assets/web/page/main.js.map"]) {
      expect((await fetch(new URL(path, viewer.url))).status, path).toBe(404);
    }
  });
});

describe("approvals from the viewer", () => {
  it("resumes a paused run from its saved state with the approval and finishes it", async () => {
    const id = await run("notebook", "plan");
    const paused = await get(`/runs/${id}`);
    expect(paused.body.run.status).toBe("awaiting-user");
    expect(paused.body.pending.map((c: { name: string }) => c.name)).toEqual(["create_plan"]);

    const callId = paused.body.pending[0].id as string;
    expect(await post(`/runs/${id}/decisions`, { decisions: { [callId]: { action: "approve" } } })).toEqual({
      status: 202,
      body: { status: "resuming" },
    });
    const events = await readEvents(`/runs/${id}/events`, (seen) => seen.some((e) => e.event.type === "run-end"));
    expect(events.some((e) => e.event.type === "run-resumed")).toBe(true);
    await expect.poll(async () => (await get(`/runs/${id}`)).body.run.status, { timeout: 10_000 }).toBe("final");
    expect(existsSync(join(workspace, "report.md"))).toBe(true);
  });

  it("tells the model the user's reason when a call is rejected", async () => {
    const id = await run("notebook", "plan");
    const callId = (await get(`/runs/${id}`)).body.pending[0].id as string;
    await post(`/runs/${id}/decisions`, { decisions: { [callId]: { action: "reject", reason: "plan fewer steps" } } });
    const events = await readEvents(`/runs/${id}/events`, (seen) => seen.some((e) => e.event.type === "tool-end"));
    const refused = events.find((e) => e.event.type === "tool-end")!.event as Extract<AgentEvent, { type: "tool-end" }>;
    expect(refused.call.name).toBe("create_plan");
    expect(refused.result.text).toContain("plan fewer steps");
  });

  it("runs an edited call with the user's arguments", async () => {
    const id = await run("notebook", "plan");
    const call = (await get(`/runs/${id}`)).body.pending[0] as { id: string; arguments: string };
    const edited = { ...(JSON.parse(call.arguments) as object), name: "Report, as edited" };
    await post(`/runs/${id}/decisions`, { decisions: { [call.id]: { action: "edit", arguments: edited } } });
    await expect.poll(async () => (await get(`/runs/${id}`)).body.run.status, { timeout: 10_000 }).toBe("final");
    expect((await get(`/runs/${id}/plans`)).body.map((p: { name: string }) => p.name)).toEqual(["Report, as edited"]);
  });

  it("refuses decisions that do not cover exactly the pending calls, for runs not waiting, and from other origins", async () => {
    const id = await run("notebook", "plan");
    const callId = (await get(`/runs/${id}`)).body.pending[0].id as string;
    const missing = await post(`/runs/${id}/decisions`, { decisions: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain(`missing: ${callId}`);
    const stray = await post(`/runs/${id}/decisions`, { decisions: { [callId]: { action: "approve" }, other: { action: "approve" } } });
    expect(stray.body.error).toContain("not pending: other");
    expect((await post(`/runs/${id}/decisions`, { decisions: { [callId]: { action: "edit", arguments: "[1]" } } })).status).toBe(400);
    expect((await post(`/runs/${id}/decisions`, { decisions: { [callId]: { action: "approve" } } }, { "content-type": "text/plain" })).status).toBe(415);
    const foreign = await post(`/runs/${id}/decisions`, { decisions: { [callId]: { action: "approve" } } }, {
      "content-type": "application/json",
      origin: "http://evil.example",
    });
    expect(foreign.status).toBe(403);
    expect((await get(`/runs/${id}`)).body.run.status).toBe("awaiting-user");

    const finished = await run("todos");
    const notWaiting = await post(`/runs/${finished}/decisions`, { decisions: {} });
    expect(notWaiting.status).toBe(409);
    expect(notWaiting.body.error).toContain("final");
  });
});

describe("the event stream", () => {
  const toolEnd = (n: number): AgentEvent => ({
    type: "tool-end",
    agent: "writer",
    time: n,
    step: n,
    call: { id: `c${n}`, name: "read_file", arguments: "{}" },
    result: { text: `result ${n}`, isError: false },
    refused: false,
    durationMs: 1,
  });

  it("streams events another writer appends while the client listens, with their sequence numbers as ids", async () => {
    // Another process's connection to the file: each event it appends reaches the stream live.
    const writer = new SqliteRunStore(database);
    const lease = await writer.createRun({ id: "live", task: "t", strategy: "notebook", model: "m" }, {}, "writer", 60_000);
    await writer.appendEvents(lease, [toolEnd(1)]);
    try {
      let appended = 1;
      const events = await readEvents("/runs/live/events", (seen) => {
        // The next event is written only once the stream has shown the last one.
        if (appended < 6 && seen.length >= appended) void writer.appendEvents(lease, [toolEnd(++appended)]);
        return seen.length >= 6;
      });
      expect(events.map((e) => e.id)).toEqual(["1", "2", "3", "4", "5", "6"]);
      expect(events.map((e) => e.event.time)).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await writer.close();
    }
  });

  it("resumes after Last-Event-ID (or ?after=) on reconnect", async () => {
    const writer = new SqliteRunStore(database);
    const lease = await writer.createRun({ id: "again", task: "t", strategy: "notebook", model: "m" }, {}, "writer", 60_000);
    for (let n = 1; n <= 4; n++) await writer.appendEvents(lease, [toolEnd(n)]);
    await writer.close();
    const afterHeader = await readEvents("/runs/again/events", (seen) => seen.length >= 1, { "last-event-id": "3" });
    expect(afterHeader.map((e) => e.id)).toEqual(["4"]);
    const afterQuery = await readEvents("/runs/again/events?after=2", (seen) => seen.length >= 2);
    expect(afterQuery.map((e) => e.id)).toEqual(["3", "4"]);
  });
});

describe("event streams under clients that do not read", () => {
  const BACKLOG = 10_000;
  // A connection's own buffer (16 KiB) and the one event that overflowed it, with room to spare.
  const BOUND = 64 * 1024;

  /** A run of 10,000 events of about 1 KB: ten times what the kernel buffers for a connection that is never read. */
  async function bigRun(id: string): Promise<void> {
    const db = openSqliteDatabase(database);
    await new SqliteRunStore(db).createRun({ id, task: "t", strategy: "notebook", model: "m" }, {}, "writer", 60_000);
    // Written in one transaction, as a driver's events would be over a long run.
    const insert = db.prepare("INSERT INTO run_events (run_id, seq, event) VALUES (?, ?, ?)");
    db.transaction(() => {
      for (let n = 1; n <= BACKLOG; n++) insert.run(id, n, JSON.stringify(bulkyEvent(n)));
    })();
    db.close();
  }

  /** A raw TCP client that sends the request and then never reads a byte. */
  async function stalledClient(path: string): Promise<Socket> {
    const url = new URL(path, viewer.url);
    const socket = connect(Number(url.port), url.hostname);
    await once(socket, "connect");
    socket.write(`GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
    return socket;
  }

  it("with 30 clients that never read, buffers a bounded amount for each, and a reading client still gets every event in order", async () => {
    await viewer.close();
    viewer = await startViewer({ runs, maxStreams: 31 });
    await bigRun("big");
    const stalled = await Promise.all(Array.from({ length: 30 }, () => stalledClient("/runs/big/events")));
    try {
      // Each stalled stream writes until its connection is full, then stops.
      await expect.poll(() => viewer.eventStreams().filter((stream) => stream.waitingForDrain).length, { timeout: 60_000 }).toBe(30);
      for (const stream of viewer.eventStreams()) {
        expect(stream.bufferedBytes).toBeLessThan(BOUND);
        expect(stream.sentSeq).toBeLessThan(BACKLOG);
      }

      const controller = new AbortController();
      const reader = await fetch(new URL("/runs/big/events", viewer.url), { signal: controller.signal });
      const refused = await fetch(new URL("/runs/big/events", viewer.url));
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("30");
      expect(((await refused.json()) as { error: string }).error).toMatch(/^31 event streams are open, the most this viewer serves at once/);

      const events = await collectEvents(reader, (seen) => seen.length >= BACKLOG);
      controller.abort();
      expect(events.map((e) => Number(e.id))).toEqual(Array.from({ length: BACKLOG }, (_, i) => i + 1));
      expect(events.every((e, i) => e.event.type === "tool-end" && e.event.time === i + 1)).toBe(true);
      for (const stream of viewer.eventStreams()) expect(stream.bufferedBytes).toBeLessThan(BOUND);
    } finally {
      for (const socket of stalled) socket.destroy();
    }
    // Heavy by design: about 100 MB go into the stalled connections' kernel buffers first.
  }, 120_000);

  it("drops a client that takes nothing for streamStallMs, ending with an event that says where to resume", async () => {
    await viewer.close();
    viewer = await startViewer({ runs, streamStallMs: 50 });
    await bigRun("big");
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      request(new URL("/runs/big/events", viewer.url), (res) => resolve(res.pause())).on("error", reject).end();
    });
    expect(response.statusCode).toBe(200);
    await expect.poll(() => viewer.eventStreams().length, { timeout: 60_000 }).toBe(0);

    // Reading again, the client gets what was sent before the drop, then the notice, then the end.
    let text = "";
    response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    response.resume();
    await once(response, "end");
    const blocks = text.split("\n\n").filter(Boolean);
    const ids = blocks.flatMap((block) => /^id: (\d+)$/m.exec(block)?.[1] ?? []).map(Number);
    expect(ids.length).toBeGreaterThan(0);
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
    const last = blocks.at(-1)!;
    expect(last).toMatch(/^event: dropped\ndata: /);
    const notice = JSON.parse(last.slice(last.indexOf("data: ") + 6)) as { reason: string; lastEventId: number; reconnect: string };
    expect(notice.lastEventId).toBe(ids.at(-1));
    expect(notice.lastEventId).toBeLessThan(BACKLOG);
    expect(notice.reason).toContain("took no data for 50 ms");
    expect(notice.reconnect).toContain(`Last-Event-ID: ${notice.lastEventId}`);

    const resumed = await readEvents("/runs/big/events", (seen) => seen.length >= 1, { "last-event-id": String(notice.lastEventId) });
    expect(resumed[0]!.id).toBe(String(notice.lastEventId + 1));
  });
});

describe("the viewer's HTTP API (/api)", () => {
  it("lists runs as id, task, strategy, model, status, created, updated and what they took, and shows, streams and decides one", async () => {
    const id = await run("notebook", "plan");
    const listed = await get("/api/runs");
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(1);
    const [summary] = listed.body as Record<string, string>[];
    expect(Object.keys(summary!).sort()).toEqual(["created", "durationMs", "id", "inputTokens", "model", "modelCalls", "outputTokens", "status", "strategy", "task", "updated"]);
    expect(summary).toMatchObject({ id, task: "Survey the workspace", strategy: "notebook", model: "scripted:demo", status: "awaiting-user" });

    const details = await get(`/api/runs/${id}`);
    expect(details.body).toMatchObject({ run: { id, status: "awaiting-user" }, pending: [{ name: "create_plan" }], resuming: false });
    const backlog = await readEvents(`/api/runs/${id}/events`, (seen) => seen.some((e) => e.event.type === "approval-requested"));
    expect(backlog[0]).toMatchObject({ id: "1", event: { type: "run-start" } });

    const callId = details.body.pending[0].id as string;
    expect(await post(`/api/runs/${id}/decisions`, { decisions: { [callId]: { action: "approve" } } })).toEqual({ status: 202, body: { status: "resuming" } });
    const after = await readEvents(`/api/runs/${id}/events?after=${details.body.lastSeq}`, (seen) => seen.some((e) => e.event.type === "run-end"));
    expect(after[0]?.event.type).toBe("run-resumed");
    await expect.poll(async () => (await get(`/api/runs/${id}`)).body.run.status, { timeout: 10_000 }).toBe("final");
    expect((await get("/api/runs/nope")).status).toBe(404);
  });

  it("answers 409 naming the holder when another process holds the paused run, and leaves it paused", async () => {
    const id = await run("notebook", "plan");
    const callId = (await get(`/api/runs/${id}`)).body.pending[0].id as string;
    const elsewhere = new SqliteRunStore(database);
    const lease = await elsewhere.acquireLease(id, "another-machine:4242:abcd", 60_000);
    try {
      const refused = await post(`/api/runs/${id}/decisions`, { decisions: { [callId]: { action: "approve" } } });
      expect(refused).toEqual({ status: 409, body: { error: `run ${id} is already being resumed by another-machine:4242:abcd` } });
      expect((await get(`/api/runs/${id}`)).body.run.status).toBe("awaiting-user");
    } finally {
      await elsewhere.releaseLease(lease);
      await elsewhere.close();
    }
  });
});

/** A request with headers fetch will not let us forge (Host). */
function rawRequest(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string; headers: IncomingMessage["headers"] }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("who may use the viewer", () => {
  it("refuses reads and decisions whose Host header names another site (DNS rebinding)", async () => {
    const id = await run("notebook", "plan");
    const callId = (await get(`/runs/${id}`)).body.pending[0].id as string;
    const rebound = { host: `evil.example:${new URL(viewer.url).port}` };
    const read = await rawRequest(new URL(`/runs/${id}`, viewer.url).href, "GET", rebound);
    expect(read.status).toBe(403);
    expect(read.body).not.toContain(callId);
    const body = JSON.stringify({ decisions: { [callId]: { action: "approve" } } });
    const decide = await rawRequest(new URL(`/runs/${id}/decisions`, viewer.url).href, "POST", {
      ...rebound,
      origin: "http://evil.example",
      "content-type": "application/json",
    }, body);
    expect(decide.status).toBe(403);
    expect((await get(`/runs/${id}`)).body.run.status).toBe("awaiting-user");
    // Its own loopback names still work.
    const port = new URL(viewer.url).port;
    expect((await rawRequest(new URL("/runs", viewer.url).href, "GET", { host: `localhost:${port}` })).status).toBe(200);
  });

  it("stops what it resumed when it cannot listen (the port is taken), and leaves the runs to their owner", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      await expect(startViewer({ runs, port: (taken.address() as AddressInfo).port })).rejects.toThrow(/EADDRINUSE/);
      expect(await runs.list()).toEqual([]);
    } finally {
      taken.close();
    }
  });

  it("refuses to listen beyond loopback without a token", async () => {
    await expect(startViewer({ runs, host: "0.0.0.0", port: 0 })).rejects.toThrow(/^refusing to serve the viewer on 0\.0\.0\.0 without a token/);
  });

  it("with a token, serves the page's own files to anyone, answers 401 for runs without the token, and sets no cookie", async () => {
    const guarded = await startViewer({ runs, host: "0.0.0.0", port: 0, token: "s3cret" });
    try {
      const base = guarded.url.replace("0.0.0.0", "127.0.0.1");
      // The shell and its module hold nothing of any run; the page brings the token with every request for runs.
      for (const path of ["/", "/assets/web/page/main.js"]) expect((await fetch(new URL(path, base))).status, path).toBe(200);
      for (const path of ["/runs", "/api/runs", "/runs/x/events"]) {
        const refused = await fetch(new URL(path, base));
        expect(refused.status, path).toBe(401);
        expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="stepwise viewer"');
      }
      expect((await fetch(new URL("/runs?token=wrong", base))).status).toBe(401);
      expect((await fetch(new URL("/runs", base), { headers: { authorization: "Bearer wrong" } })).status).toBe(401);

      const page = await fetch(new URL("/?token=s3cret", base));
      expect(await page.text()).toContain("Stepwise plan viewer");
      expect(page.headers.get("set-cookie")).toBeNull();
      expect((await fetch(new URL("/runs", base), { headers: { authorization: "Bearer s3cret" } })).status).toBe(200);
      expect((await fetch(new URL("/runs?token=s3cret", base))).status).toBe(200);

      // The cookie earlier versions set is no key any more, and is cleared wherever it still comes.
      const oldCookie = await fetch(new URL("/runs", base), { headers: { cookie: "stepwise_ui_token=s3cret" } });
      expect(oldCookie.status).toBe(401);
      expect(oldCookie.headers.get("set-cookie")).toBe("stepwise_ui_token=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/");
    } finally {
      await guarded.close();
    }
  });

  it("tells browsers with every response that no page may frame it, and what its own page may load", async () => {
    const id = await run("notebook", "plan");
    for (const path of ["/", "/assets/web/page/main.js", "/runs", `/runs/${id}`, "/nope"]) {
      const response = await fetch(new URL(path, viewer.url));
      expect(response.headers.get("x-frame-options"), path).toBe("DENY");
      expect(response.headers.get("content-security-policy"), path).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("cross-origin-resource-policy"), path).toBe("same-origin");
    }
    // A refusal too: the page a rebinding site would frame is no page at all.
    const refused = await rawRequest(new URL("/", viewer.url).href, "GET", { host: "evil.example" });
    expect(refused.status).toBe(403);
    expect(refused.headers["x-frame-options"]).toBe("DENY");
  });
});
