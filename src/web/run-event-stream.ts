import type { IncomingMessage, ServerResponse } from "node:http";
import type { Runs } from "../runs/runs.js";

const HEARTBEAT_MS = 15_000;

/**
 * Serves a run's events as Server-Sent Events, backlog first, then live as any process records them
 * (the run layer wakes on the store's change notices). Each event's `id` is its sequence number, so a
 * reconnecting browser resumes after the last one it saw (`Last-Event-ID`); `?after=N` starts after
 * event N. Returns a function that ends the stream.
 */
export function streamRunEvents(runs: Runs, runId: string, req: IncomingMessage, res: ServerResponse): () => void {
  const stop = new AbortController();
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  res.write("retry: 1000\n\n");
  const heartbeat = setInterval(() => res.write(": still here\n\n"), HEARTBEAT_MS);
  const end = () => {
    stop.abort();
    clearInterval(heartbeat);
    if (!res.writableEnded) res.end();
  };
  req.on("close", end);
  void (async () => {
    try {
      for await (const { seq, event } of runs.events(runId, { after: startAfter(req), follow: true, signal: stop.signal })) {
        res.write(`id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`);
      }
    } catch (error) {
      // A locked or vanished store: end this stream; the browser reconnects where it stopped.
      if (!res.writableEnded) res.write(`event: stream-error\ndata: ${JSON.stringify(error instanceof Error ? error.message : String(error))}\n\n`);
    } finally {
      end();
    }
  })();
  return end;
}

function startAfter(req: IncomingMessage): number {
  const header = req.headers["last-event-id"];
  const fromHeader = Number(Array.isArray(header) ? header[0] : header);
  if (Number.isInteger(fromHeader) && fromHeader > 0) return fromHeader;
  const after = Number(new URL(req.url ?? "/", "http://viewer").searchParams.get("after"));
  return Number.isInteger(after) && after > 0 ? after : 0;
}
