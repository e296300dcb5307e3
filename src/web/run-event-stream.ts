import type { IncomingMessage, ServerResponse } from "node:http";
import type { RunLog } from "../stores/run-log.js";

const HEARTBEAT_MS = 15_000;

/**
 * Serves a run's logged events as Server-Sent Events, following the log as other processes append
 * to it (the SQLite file is polled: a writer in another process cannot notify us). Each event's `id`
 * is its sequence number, so a reconnecting browser resumes after the last one it saw
 * (`Last-Event-ID`); `?after=N` starts after event N. Returns a function that ends the stream.
 */
export function streamRunEvents(log: RunLog, runId: string, req: IncomingMessage, res: ServerResponse, pollMs: number): () => void {
  let lastSeq = startAfter(req);
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  res.write("retry: 1000\n\n");
  const send = () => {
    for (let page = log.events(runId, lastSeq); page.length > 0; page = log.events(runId, lastSeq)) {
      for (const { seq, event } of page) {
        res.write(`id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`);
        lastSeq = seq;
      }
    }
  };
  const poll = setInterval(() => {
    try {
      send();
    } catch (error) {
      // A locked or vanished file: end this stream; the browser reconnects where it stopped.
      res.write(`event: stream-error\ndata: ${JSON.stringify(error instanceof Error ? error.message : String(error))}\n\n`);
      end();
    }
  }, pollMs);
  const heartbeat = setInterval(() => res.write(": still here\n\n"), HEARTBEAT_MS);
  const end = () => {
    clearInterval(poll);
    clearInterval(heartbeat);
    if (!res.writableEnded) res.end();
  };
  req.on("close", end);
  send();
  return end;
}

function startAfter(req: IncomingMessage): number {
  const header = req.headers["last-event-id"];
  const fromHeader = Number(Array.isArray(header) ? header[0] : header);
  if (Number.isInteger(fromHeader) && fromHeader > 0) return fromHeader;
  const after = Number(new URL(req.url ?? "/", "http://viewer").searchParams.get("after"));
  return Number.isInteger(after) && after > 0 ? after : 0;
}
