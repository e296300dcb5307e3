import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cliTestTimeout, freshHome, runCli, workspace } from "./cli-harness.js";

// Built code only (`npm run build` first), as a user's machine would run it.
const { openStores } = (await import(new URL("../../dist/runs/index.js", import.meta.url).href)) as typeof import("../../src/runs/index.js");
const { stampEvent } = (await import(new URL("../../dist/core/events.js", import.meta.url).href)) as typeof import("../../src/core/events.js");

type Received = { method: string; path: string; body: unknown };

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A stand-in for Restate's ingress: records each request and answers it as Restate answers a decide (200, no body). */
async function fakeIngress(): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
    req.on("end", () => {
      received.push({ method: req.method ?? "", path: req.url ?? "", body: text ? JSON.parse(text) : undefined });
      res.writeHead(200).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

/** A run a Restate invocation holds, paused on one write for approval, as `stepwise restate serve` leaves it. */
async function heldByRestate(home: string): Promise<{ store: string; id: string; decisions: string }> {
  const store = join(home, "runs.db");
  const stores = openStores(store);
  const id = randomUUID();
  try {
    const lease = await stores.runs.createRun({ id, task: "Write the note", strategy: "todos", model: "scripted:demo" }, { workspace: workspace(home), approval: "writes" }, "restate:inv_1", 600_000);
    const calls = [{ id: "call_1", name: "write_file", arguments: JSON.stringify({ path: "note.md", content: "hi" }), kind: "approval" as const }];
    await stores.runs.appendEvents(lease, [stampEvent({ type: "approval-requested", calls }, "agent", { runId: id })]);
    await stores.runs.updateRun(lease, { status: "awaiting-user" });
  } finally {
    await stores.close();
  }
  const decisions = join(home, "decisions.json");
  writeFileSync(decisions, JSON.stringify([{ action: "approve" }]));
  return { store, id, decisions };
}

describe("stepwise run --resume --decisions on a run Restate drives", () => {
  it("sends the decisions to Restate's ingress, says so in one line and exits 0, driving nothing here", async () => {
    const home = freshHome();
    const { store, id, decisions } = await heldByRestate(home);
    const ingress = await fakeIngress();
    const result = await runCli(["run", "--resume", id, "--decisions", decisions, "--restate-ingress", ingress.url, "--store", store], { home });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^decisions for run ${id} sent to Restate at ${ingress.url}`))]);
    expect(ingress.received).toEqual([{ method: "POST", path: `/StepwiseRun/${id}/decide`, body: { call_1: { action: "approve" } } }]);
    // Restate goes on with it: the run is as Restate left it, still held by its invocation.
    const stores = openStores(store);
    try {
      expect(await stores.runs.getRun(id)).toMatchObject({ status: "awaiting-user", lease: { holder: "restate:inv_1" } });
    } finally {
      await stores.close();
    }
  }, cliTestTimeout(1));

  it("refuses an ingress that is not an http URL in one line, exiting non-zero, before anything is sent", async () => {
    const home = freshHome();
    const { store, id, decisions } = await heldByRestate(home);
    const result = await runCli(["run", "--resume", id, "--decisions", decisions, "--restate-ingress", "127.0.0.1:8080", "--store", store], { home });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split("\n")).toEqual(['stepwise: --restate-ingress expects an http:// or https:// URL, got "127.0.0.1:8080"']);
  }, cliTestTimeout(1));

  it("says in one line that an ingress nobody listens on could not be reached, exiting non-zero", async () => {
    const home = freshHome();
    const { store, id, decisions } = await heldByRestate(home);
    const ingress = await fakeIngress();
    // A port that was just free: nothing listens on it once the server is closed.
    await new Promise((resolve) => (servers.pop() as Server).close(resolve));
    const result = await runCli(["run", "--resume", id, "--decisions", decisions, "--restate-ingress", ingress.url, "--store", store], { home });
    expect(result.code).not.toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^stepwise: could not send the decisions for run ${id} to Restate at ${ingress.url}: .*ECONNREFUSED`));
  }, cliTestTimeout(1));
});
