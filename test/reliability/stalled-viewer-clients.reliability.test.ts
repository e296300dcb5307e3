import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteDatabase } from "../../src/stores/sqlite-database.js";
import { SqliteRunStore } from "../../src/stores/sqlite-run-store.js";
import { CLI, freshHome } from "../cli/cli-harness.js";
import { recordFigure } from "./figures.js";
import { bulkyEvent } from "../../src/web/test-support/bulky-event.js";

const EVENTS = 10_000;
const STALLED = 30;
// Stalled clients hold one connection's buffer each: a few MB in all, far from the ~10 MB backlog per client.
const GROWTH_BOUND_MB = 64;

/** The viewer child's resident memory, from the kernel. */
function rssMb(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  return kb / 1024;
}

/** Reads the whole backlog of the stream, counting events; resolves once all have come. */
async function readAll(url: string): Promise<number> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const decoder = new TextDecoder();
  let seen = 0;
  let rest = "";
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const blocks = (rest + decoder.decode(chunk, { stream: true })).split("\n\n");
    rest = blocks.pop() ?? "";
    seen += blocks.filter((block) => block.startsWith("id: ")).length;
    if (seen >= EVENTS) break;
  }
  controller.abort();
  return seen;
}

/** Sends the request, takes the first bytes of the answer (the stream has started), then reads no more. */
async function stalledClient(url: URL): Promise<Socket> {
  const socket = connect(Number(url.port), url.hostname);
  await once(socket, "connect");
  socket.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`);
  await once(socket, "data");
  socket.pause();
  return socket;
}

describe("the viewer (stepwise ui, a real process) with clients that never read", () => {
  it(`stays within ${GROWTH_BOUND_MB} MB of its baseline with ${STALLED} stalled streams on a ${EVENTS}-event run`, async () => {
    const home = freshHome();
    const db = openSqliteDatabase(join(home, "stepwise.db"));
    await new SqliteRunStore(db).createRun({ id: "big", task: "t", strategy: "notebook", model: "m" }, {}, "writer", 60_000);
    const insert = db.prepare("INSERT INTO run_events (run_id, seq, event) VALUES (?, ?, ?)");
    db.transaction(() => {
      for (let n = 1; n <= EVENTS; n++) {
        insert.run("big", n, JSON.stringify(bulkyEvent(n)));
      }
    })();
    db.close();

    const child = spawn(process.execPath, [CLI, "ui", "--port", "0"], { env: { PATH: process.env["PATH"] ?? "", STEPWISE_HOME: home } });
    const sockets: Socket[] = [];
    try {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
      await expect.poll(() => out, { timeout: 30_000 }).toMatch(/plan viewer: http:\/\/127\.0\.0\.1:\d+\//);
      const stream = new URL("/runs/big/events", /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)![1]!);

      // Baseline: the viewer after it has served the whole backlog once.
      expect(await readAll(stream.href)).toBe(EVENTS);
      const baseline = rssMb(child.pid!);
      for (let i = 0; i < STALLED; i++) sockets.push(await stalledClient(stream));
      // A reader beside them still gets everything.
      expect(await readAll(stream.href)).toBe(EVENTS);
      const growth = rssMb(child.pid!) - baseline;
      recordFigure("6-viewer", `viewer memory with ${STALLED} stalled clients on a ${EVENTS}-event run: +${growth.toFixed(1)} MB over a baseline of ${baseline.toFixed(0)} MB`);
      expect(growth).toBeLessThan(GROWTH_BOUND_MB);
    } finally {
      for (const socket of sockets) socket.destroy();
      child.kill("SIGINT");
      await once(child, "exit");
    }
  });
});
