import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkDecisions, DecisionsError } from "../core/approval.js";
import { boundedQuote } from "../core/bounded-quote.js";
import { ModelUnavailableError } from "../runs/run-input-error.js";
import type { Runs } from "../runs/runs.js";
import { RunFiguresCache, type RunFigures } from "../runs/run-figures.js";
import { RunBusyError, type RunRecord } from "../stores/run-store.js";
import { PAGE_HTML } from "./page-html.js";
import { PAGE_CSS } from "./page-style.js";
import { pageModule } from "./page-modules.js";
import { modelCallRecord, runDetails, toolCallRecord } from "./run-details.js";
import { matchesRunFilter, parseRunFilter, RunFilterError } from "./run-filter.js";
import { RunEventStreams, type EventStreamStat } from "./run-event-stream.js";
import { cannotContinueHere, decisionsBodySchema, RunResumer, toDecisions } from "./run-resumer.js";
import { sendSecurityHeaders } from "./security-headers.js";
import { viewerAccess } from "./viewer-access.js";

export type ViewerOptions = {
  /** The runs to show and resume (the caller opened them, and closes them after the viewer). */
  runs: Runs;
  /** Where to listen (default 127.0.0.1). Any other address needs a `token`. */
  host?: string;
  /** When set, every request for runs must bring it (`Authorization: Bearer`, or `?token=`); the page takes it from `?token=` once and keeps it in the tab. */
  token?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Most event streams served at once (default 64); one more is refused with 503 and Retry-After. */
  maxStreams?: number;
  /** How long an event stream's client may take nothing while events wait before it is dropped (ms, default 30 s). */
  streamStallMs?: number;
};

export type Viewer = {
  url: string;
  /** The open event streams: what each has sent and still buffers. */
  eventStreams(): EventStreamStat[];
  close(): Promise<void>;
};

const ASSETS: Record<string, { type: string; body: string }> = {
  "/": { type: "text/html; charset=utf-8", body: PAGE_HTML },
  "/assets/viewer.css": { type: "text/css; charset=utf-8", body: PAGE_CSS },
  "/favicon.ico": { type: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M3 8l3 3 7-7" stroke="#2a7" stroke-width="2.5" fill="none"/></svg>' },
};
const MAX_BODY_BYTES = 1 << 20;
const RUNS_LISTED = 200;
/** The newest runs a filter looks through. */
const RUNS_FILTERED = 2000;

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** A run as `GET /api/runs` lists it, with what it took (`costUsd` absent when no call's model has a known price). */
export type RunSummary = {
  id: string;
  task: string;
  strategy: string;
  model: string;
  status: RunRecord["status"];
  created: string;
  updated: string;
  durationMs: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
};

/** A run as the page's list reads it: the record and its figures. */
export type ListedRun = RunRecord & { figures: RunFigures };

const summary = ({ figures, ...run }: ListedRun): RunSummary => ({
  id: run.id,
  task: run.task,
  strategy: run.strategy,
  model: run.model,
  status: run.status,
  created: run.createdAt,
  updated: run.updatedAt,
  durationMs: figures.durationMs,
  modelCalls: figures.modelCalls,
  inputTokens: figures.inputTokens,
  outputTokens: figures.outputTokens,
  ...(figures.costUsd !== undefined ? { costUsd: figures.costUsd } : {}),
});

/**
 * `stepwise ui`: serves the plan viewer and its HTTP API for the runs of a store (a SQLite file, or
 * PostgreSQL shared by every machine). Runs are read as any process records them; a run paused for
 * approval is continued here when the user decides on the page or through the API.
 *
 * The API: `GET /api/runs` (filtered by `status`, `strategy`, `model`, `q`), `GET /api/runs/:id`,
 * `GET /api/runs/:id/events` (Server-Sent Events), `GET /api/runs/:id/calls/:n` (model call n as it was
 * sent), `GET /api/runs/:id/tool-calls/:callId` (`?run=` for a nested run's call),
 * `POST /api/runs/:id/decisions`. The page uses the same routes without the `/api` prefix.
 */
export async function startViewer(opts: ViewerOptions): Promise<Viewer> {
  const access = viewerAccess(opts.host ?? "127.0.0.1", opts.token);
  const { runs } = opts;
  const resumer = new RunResumer(runs);
  const streams = new RunEventStreams(runs, { maxStreams: opts.maxStreams ?? 64, stallMs: opts.streamStallMs ?? 30_000 });

  const figures = new RunFiguresCache(runs.stores.runs);
  const listRuns = async (query: URLSearchParams): Promise<ListedRun[]> => {
    let filter;
    try {
      filter = parseRunFilter(query);
    } catch (error) {
      if (error instanceof RunFilterError) throw new HttpProblem(400, error.message);
      throw error;
    }
    const listed =
      Object.keys(filter).length === 0 ? await runs.list(RUNS_LISTED) : (await runs.list(RUNS_FILTERED)).filter((run) => matchesRunFilter(run, filter)).slice(0, RUNS_LISTED);
    const known = await figures.of(listed);
    return listed.map((run) => ({ ...run, figures: known.get(run.id)! }));
  };

  const routes = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<unknown> => {
    const path = url.pathname;
    const asset = req.method === "GET" ? ASSETS[path] : undefined;
    const module = req.method === "GET" && !asset ? await pageModule(path) : undefined;
    if (asset || module !== undefined) {
      res.writeHead(200, { "content-type": asset?.type ?? "text/javascript; charset=utf-8", "cache-control": "no-cache" });
      res.end(asset?.body ?? module);
      return undefined;
    }
    if (req.method === "GET" && path === "/runs") return listRuns(url.searchParams);
    if (req.method === "GET" && path === "/api/runs") return (await listRuns(url.searchParams)).map(summary);
    const match = /^(\/api)?\/runs\/([^/]+)(\/plans|\/events|\/decisions|\/calls\/([^/]+)|\/tool-calls\/([^/]+))?$/.exec(path);
    if (!match) throw new HttpProblem(404, `nothing at ${path}`);
    const runId = decoded(match[2] ?? "");
    if (!(await runs.get(runId))) throw new HttpProblem(404, `no run ${runId}`);
    const part = match[3];
    if (req.method === "GET" && match[4] !== undefined) {
      const n = Number(match[4]);
      if (!Number.isInteger(n) || n < 1) throw new HttpProblem(400, `model calls are numbered from 1; ${boundedQuote(decoded(match[4]))} is not such a number`);
      const call = await modelCallRecord(runs.stores.runs, runId, n);
      if (!call) throw new HttpProblem(404, `run ${runId} has no model call ${n}`);
      return call;
    }
    if (req.method === "GET" && match[5] !== undefined) {
      const callId = decoded(match[5]);
      const call = await toolCallRecord(runs.stores.runs, runId, callId, url.searchParams.get("run") ?? undefined);
      if (!call) throw new HttpProblem(404, `run ${runId} has no tool call ${boundedQuote(callId)}`);
      return call;
    }
    if (req.method === "POST" && part === "/decisions") return decide(req, runId);
    if (req.method !== "GET") throw new HttpProblem(405, `${req.method ?? "?"} is not allowed on ${path}`);
    if (part === "/plans") {
      const plans = await runs.stores.plans(runId);
      try {
        return plans.list();
      } finally {
        plans.close?.();
      }
    }
    if (part === "/events") {
      const full = streams.refusal();
      if (full) throw new HttpProblem(503, full.message, { "retry-after": String(full.retryAfterSeconds) });
      await streams.open(runId, req, res);
      return undefined;
    }
    if (part !== undefined) throw new HttpProblem(405, `${req.method} is not allowed on ${path}`);
    const error = resumer.error(runId);
    return { ...(await runDetails(runs.stores.runs, runId)), resuming: resumer.isResuming(runId), ...(error ? { resumeError: error } : {}) };
  };

  const decide = async (req: IncomingMessage, runId: string): Promise<unknown> => {
    checkSameOrigin(req);
    const body = await readJson(req);
    const details = await runDetails(runs.stores.runs, runId);
    if (!details) throw new HttpProblem(404, `no run ${runId}`);
    const { run, pending } = details;
    if (run.status !== "awaiting-user" || resumer.isResuming(run.id)) {
      throw new HttpProblem(409, `run ${run.id} is ${resumer.isResuming(run.id) ? "already resuming" : run.status}, not waiting for the user`);
    }
    const parsed = decisionsBodySchema.safeParse(body);
    if (!parsed.success) throw new HttpProblem(400, `bad decisions: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    const decisions = toDecisions(parsed.data);
    try {
      // Refused here, before the run is taken over: a decision of the wrong kind must not cost the paused call.
      checkDecisions(pending, decisions);
      // A run held by an external driver (Restate) goes on there; any other is taken over here.
      if (await runs.decideExternally(run.id, decisions)) return { status: "resuming" };
      await resumer.start(run.id, decisions);
    } catch (error) {
      if (error instanceof DecisionsError) throw new HttpProblem(400, error.message);
      if (error instanceof RunBusyError) throw new HttpProblem(409, error.message);
      // The server lacks what the run needs: a state of this server, not a fault in it or in the request.
      if (error instanceof ModelUnavailableError) throw new HttpProblem(503, cannotContinueHere(error));
      throw error;
    }
    return { status: "resuming" };
  };

  const server = createServer((req, res) => {
    sendSecurityHeaders(res);
    const refusal = access.refusal(req, res);
    if (refusal) return sendJson(res, refusal.status, { error: refusal.message });
    const url = new URL(req.url ?? "/", "http://viewer");
    Promise.resolve()
      .then(() => routes(req, res, url))
      .then((body) => {
        if (body !== undefined) sendJson(res, req.method === "POST" ? 202 : 200, body);
      })
      .catch((error: unknown) => {
        const status = error instanceof HttpProblem ? error.status : 500;
        const message = error instanceof Error ? error.message : String(error);
        if (res.headersSent) return void res.end();
        if (error instanceof HttpProblem) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
        sendJson(res, status, { error: message });
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  }).catch(async (error: unknown) => {
    // The port is taken, say: leave nothing running behind.
    await resumer.close();
    throw error;
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/`,
    eventStreams: () => streams.stats(),
    async close() {
      await streams.closeAll();
      await resumer.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

/** Only the page itself may decide: a JSON body (which a cross-site form cannot send) from our own origin. */
function checkSameOrigin(req: IncomingMessage): void {
  if (!(req.headers["content-type"] ?? "").startsWith("application/json")) throw new HttpProblem(415, "send the decisions as application/json");
  const origin = req.headers.origin;
  if (origin !== undefined && hostOf(origin) !== req.headers.host) {
    throw new HttpProblem(403, "decisions are only taken from the viewer's own page");
  }
}

/** A path segment, unescaped; a malformed escape is the client's mistake, not the server's. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpProblem(400, `${boundedQuote(segment)} is not a validly escaped path segment`);
  }
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new HttpProblem(413, "the request body is too large");
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    throw new HttpProblem(400, "the request body is not valid JSON");
  }
}
