import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as the fake provider received it, body parsed as JSON. */
export type ReceivedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: any };

/** Answers request number `index` (0-based) of the test. */
export type Handler = (res: ServerResponse, req: ReceivedRequest, index: number) => void | Promise<void>;

export interface TestServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  readonly url: string;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A fake provider on a random local port, so adapters are tested through their real SDK clients. */
export async function startTestServer(handler: Handler): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const received: ReceivedRequest = {
      method: req.method ?? "",
      path: req.url ?? "",
      headers: req.headers,
      body: text ? JSON.parse(text) : undefined,
    };
    requests.push(received);
    await handler(res, received, requests.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging responses (timeout tests) would otherwise keep the server open.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers request i with handlers[i]; requests past the end get the last one. */
export function inTurn(...handlers: Handler[]): Handler {
  return (res, req, index) => {
    const handler = handlers[Math.min(index, handlers.length - 1)];
    if (!handler) throw new Error("inTurn needs at least one handler");
    return handler(res, req, index);
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export type SseEvent = { event?: string; data: unknown };

/** Server-sent events; an event name is written only when given (Anthropic names them, OpenAI does not). */
export function sendSse(res: ServerResponse, events: SseEvent[], ending: "complete" | "drop-connection" = "complete"): void {
  const stream = openSse(res);
  stream.send(events);
  if (ending === "drop-connection") dropAfterFlush(res);
  else res.end();
}

/** Starts an event stream that the test writes to piece by piece, for a provider that writes slowly. */
export function openSse(res: ServerResponse): { send(events: SseEvent[]): void } {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  return {
    send(events) {
      for (const { event, data } of events) {
        res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
      }
    },
  };
}

/** Sends the status line and part of a JSON body, then destroys the socket. */
export function sendPartialJsonThenDrop(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { "content-type": "application/json", "content-length": String(text.length) });
  res.write(text.slice(0, Math.floor(text.length / 2)));
  dropAfterFlush(res);
}

/** Never answers: for timeout tests. */
export function hang(): void {}

function dropAfterFlush(res: ServerResponse): void {
  // Give the client time to read what was written, so the break comes mid-response.
  setTimeout(() => res.socket?.destroy(), 20);
}
