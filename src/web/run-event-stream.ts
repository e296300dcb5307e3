import type { IncomingMessage, ServerResponse } from "node:http";
import type { Runs } from "../runs/runs.js";
import type { LoggedEvent } from "../stores/run-store.js";

const HEARTBEAT_MS = 15_000;
/**
 * Events read from the log at a time: a long backlog is read page by page as the client takes it,
 * so what a stream holds besides its connection's buffer is at most this many events.
 */
const PAGE_EVENTS = 32;
/** How long a dropped client has to take what was sent and the notice before its connection is cut. */
const DROPPED_LINGER_MS = 60_000;

export type EventStreamLimits = {
  /** Most streams served at once; one more is refused with 503 until one ends. */
  maxStreams: number;
  /** How long a client may take nothing while events wait for it before it is dropped (ms). */
  stallMs: number;
};

/** What one open stream holds, for watching the server (and for tests that bound it). */
export type EventStreamStat = {
  runId: string;
  /** The last event written to the connection. */
  sentSeq: number;
  /** Bytes written but not yet taken by the client's connection. */
  bufferedBytes: number;
  /** True while the connection is full and nothing more is written until it drains. */
  waitingForDrain: boolean;
};

/** Why a stream cannot be opened now, and when to try again. */
export type StreamRefusal = { message: string; retryAfterSeconds: number };

type Stream = { runId: string; pump(): void; stat(): EventStreamStat; end(): void };

/**
 * Serves runs' logged events as Server-Sent Events, following the store as any process appends to
 * it: the run layer's change notices (NOTIFY from PostgreSQL, the SQLite file's data version) wake
 * the streams of the run that changed. Each event's `id`
 * is its sequence number, so a reconnecting browser resumes after the last one it saw
 * (`Last-Event-ID`); `?after=N` starts after event N.
 *
 * The log is the only buffer: a stream writes until the connection says it is full, then waits for
 * it to drain and reads on from where it stopped, so a client that does not read costs one
 * connection's buffer, not the run. A client that takes nothing for `stallMs` is dropped with a last
 * event saying where to resume, which frees its place for others.
 */
export class RunEventStreams {
  readonly #streams = new Set<Stream>();
  #unwatch: Promise<() => void> | undefined;

  constructor(
    private readonly runs: Runs,
    private readonly limits: EventStreamLimits,
  ) {}

  /** Undefined when a stream may open; otherwise why not. */
  refusal(): StreamRefusal | undefined {
    if (this.#streams.size < this.limits.maxStreams) return undefined;
    // A stalled client is dropped within stallMs, so a place may free up by then.
    const retryAfterSeconds = Math.max(1, Math.ceil(this.limits.stallMs / 1000));
    return {
      message: `${this.limits.maxStreams} event streams are open, the most this viewer serves at once; close another viewer tab or retry in ${retryAfterSeconds} s`,
      retryAfterSeconds,
    };
  }

  /** Starts streaming run `runId` on `res`; call `refusal()` first. */
  async open(runId: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    // One watch for every stream: with PostgreSQL, one listening connection however many clients.
    this.#unwatch ??= this.runs.watch((changed) => {
      for (const stream of this.#streams) if (changed === stream.runId || changed === "*") stream.pump();
    });
    await this.#unwatch;
    const stream = follow(this.runs, runId, startAfter(req), res, this.limits, () => this.#streams.delete(stream));
    this.#streams.add(stream);
  }

  stats(): EventStreamStat[] {
    return [...this.#streams].map((stream) => stream.stat());
  }

  async closeAll(): Promise<void> {
    for (const stream of this.#streams) stream.end();
    const unwatch = this.#unwatch;
    this.#unwatch = undefined;
    if (unwatch) (await unwatch)();
  }
}

function follow(runs: Runs, runId: string, after: number, res: ServerResponse, limits: EventStreamLimits, onEnd: () => void): Stream {
  let sentSeq = after;
  /** The page being written, and the next event of it to write. */
  let page: LoggedEvent[] = [];
  let next = 0;
  let waiting = false;
  let ended = false;
  /** A read of the store is under way; a wake-up meanwhile asks for another pass. */
  let reading = false;
  let again = false;
  let stallTimer: NodeJS.Timeout | undefined;

  /** Writes a chunk; when the connection is full, stops everything until it drains. */
  const write = (chunk: string): boolean => {
    if (res.write(chunk)) return true;
    waiting = true;
    stallTimer = setTimeout(drop, limits.stallMs).unref();
    res.once("drain", () => {
      clearTimeout(stallTimer);
      waiting = false;
      pump();
    });
    return false;
  };

  const pump = (): void => {
    if (waiting || ended) return;
    if (reading) {
      again = true;
      return;
    }
    reading = true;
    again = false;
    void (async () => {
      for (;;) {
        if (waiting || ended) return;
        if (next === page.length) {
          page = await runs.stores.runs.events(runId, sentSeq, PAGE_EVENTS);
          next = 0;
          if (page.length === 0) return;
        }
        const { seq, event } = page[next++]!;
        sentSeq = seq;
        if (!write(`id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`)) return;
      }
    })()
      .catch((error: unknown) => {
        // A locked or vanished store: end this stream; the browser reconnects where it stopped.
        finish(`event: stream-error\ndata: ${JSON.stringify(error instanceof Error ? error.message : String(error))}\n\n`);
      })
      .finally(() => {
        reading = false;
        if (again) pump();
      });
  };

  /** The client took nothing for stallMs: say so in a last event (read if it ever reads again) and let go. */
  const drop = () => {
    const notice = {
      reason: `this client took no data for ${limits.stallMs} ms while events waited, so the viewer stopped streaming to it`,
      lastEventId: sentSeq,
      reconnect: `open the stream again with Last-Event-ID: ${sentSeq} (or ?after=${sentSeq}) to continue after event ${sentSeq}`,
    };
    finish(`event: dropped\ndata: ${JSON.stringify(notice)}\n\n`);
    // The notice waits behind data the client never took; do not hold the connection for it forever.
    const linger = setTimeout(() => res.destroy(), DROPPED_LINGER_MS).unref();
    res.once("close", () => clearTimeout(linger));
  };

  const finish = (last?: string) => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    clearTimeout(stallTimer);
    onEnd();
    if (!res.writableEnded) res.end(last);
  };

  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive" });
  const heartbeat = setInterval(() => {
    if (!waiting && !ended) write(": still here\n\n");
  }, HEARTBEAT_MS);
  res.once("close", () => finish());
  if (write("retry: 1000\n\n")) pump();
  return {
    runId,
    pump,
    stat: () => ({ runId, sentSeq, bufferedBytes: res.writableLength, waitingForDrain: waiting }),
    end: () => finish(),
  };
}

function startAfter(req: IncomingMessage): number {
  const header = req.headers["last-event-id"];
  const fromHeader = Number(Array.isArray(header) ? header[0] : header);
  if (Number.isInteger(fromHeader) && fromHeader > 0) return fromHeader;
  const after = Number(new URL(req.url ?? "/", "http://viewer").searchParams.get("after"));
  return Number.isInteger(after) && after > 0 ? after : 0;
}
