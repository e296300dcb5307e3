import { ModelError, type ModelErrorKind } from "./model-error.js";
import { redactSecrets } from "./redact.js";
import { sleep } from "../core/abort.js";
import type { ChatModel, ModelRequest, ModelResponse, ModelStreamPart } from "../core/model.js";

/**
 * The one retry layer: `withRetry` puts it around any ChatModel, and every adapter is built on it. The
 * SDKs' own retries are switched off (maxRetries: 0) so that backoff, timeouts and error messages behave
 * the same whichever provider is behind a model.
 */
export interface RetryOptions {
  /** Further tries after a transient failure: 429, 5xx, a timeout, a dropped connection (default 2). */
  maxRetries?: number | undefined;
  /** How long one try may go without hearing from the provider; a stream may wait this long between chunks (default 300 000). */
  timeoutMs?: number | undefined;
  /** The first backoff delay, doubled on each retry, with jitter (default 500). */
  retryBaseDelayMs?: number | undefined;
  /** No single wait is longer than this, a server's Retry-After included (default 30 000). */
  retryMaxDelayMs?: number | undefined;
  /**
   * The longest one response may take, from the request to its last part, however steadily it streams
   * (default 600 000). Past it the call fails with kind "response-limit" and is not retried.
   */
  maxResponseMs?: number | undefined;
  /**
   * The most text and tool-call arguments one response may hold, in characters (default 4 000 000, as
   * much as one tool call's arguments may be). Past it the call fails with kind "response-limit" and is
   * not retried.
   */
  maxResponseChars?: number | undefined;
}

export type RetrySettings = { [K in keyof RetryOptions]-?: number };

export function retrySettings(opts: RetryOptions): RetrySettings {
  return {
    maxRetries: opts.maxRetries ?? 2,
    timeoutMs: opts.timeoutMs ?? 300_000,
    retryBaseDelayMs: opts.retryBaseDelayMs ?? 500,
    retryMaxDelayMs: opts.retryMaxDelayMs ?? 30_000,
    maxResponseMs: opts.maxResponseMs ?? 600_000,
    maxResponseChars: opts.maxResponseChars ?? 4_000_000,
  };
}

/** What one failed try amounts to. Adapters translate their SDK's errors into this. */
export type Failure = {
  kind: ModelErrorKind;
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  detail: string;
};

/** Thrown by an adapter when a stream closes before the provider said the answer was complete. */
export class IncompleteStreamError extends Error {}

/** Who is being called, for error messages, and how to read that SDK's errors. */
export interface RetryTarget {
  provider: string;
  model: string;
  settings: RetrySettings;
  /** Scrubbed out of every error message: the API key. */
  secrets: readonly (string | undefined)[];
  /** The adapter's reading of an SDK error; undefined hands it to the shared rules below. */
  describe(error: unknown): Failure | undefined;
}

/**
 * One try. Its signal fires when the caller aborts, when the provider has been silent for timeoutMs,
 * or when the response went past maxResponseMs or maxResponseChars.
 */
export interface Attempt {
  readonly signal: AbortSignal;
  /** The provider is still sending: restart the silence timer. */
  alive(): void;
  /**
   * The provider sent a piece of the response holding `chars` characters of text or tool-call
   * arguments: as `alive`, and counted towards maxResponseChars; throws once past it.
   */
  received(chars: number): void;
}

/** One try at a model call. `attempt` hears how the response is coming, and its signal ends the try. */
export interface SingleTry {
  generate(req: ModelRequest, attempt: Attempt): Promise<ModelResponse>;
  stream?(req: ModelRequest, attempt: Attempt): AsyncIterable<ModelStreamPart>;
}

type Streaming = { stream(req: ModelRequest): AsyncIterable<ModelStreamPart> };

/** A ChatModel that makes each call through `once`, trying again as `target.settings` say. */
export function retryingModel(id: string, target: RetryTarget, once: SingleTry & Required<Pick<SingleTry, "stream">>): ChatModel & Streaming;
export function retryingModel(id: string, target: RetryTarget, once: SingleTry): ChatModel;
export function retryingModel(id: string, target: RetryTarget, once: SingleTry): ChatModel {
  const model: ChatModel = {
    id,
    generate(req) {
      return callWithRetry(target, req.signal, async (attempt) => {
        const response = await once.generate(req, attempt);
        attempt.received(responseChars(response));
        return response;
      });
    },
  };
  const stream = once.stream?.bind(once);
  if (stream) model.stream = (req) => streamWithRetry(target, req.signal, (attempt) => stream(req, attempt));
  return model;
}

/**
 * `model` with retries, timeouts and response limits: a transient failure (429, 5xx, a timeout, a
 * dropped connection, a thrown error whose `status` says so) is tried again with backoff; each try gets
 * its own signal, which ends when the try does. A `ModelError` from `model` is final and passed on, so a
 * model that retries already (the adapters do) is not retried twice over.
 */
export function withRetry<M extends ChatModel>(model: M, opts: RetryOptions = {}): ChatModel & Pick<M, "stream"> {
  const colon = model.id.indexOf(":");
  const target: RetryTarget = {
    provider: colon > 0 ? model.id.slice(0, colon) : "custom",
    model: colon > 0 ? model.id.slice(colon + 1) : model.id,
    settings: retrySettings(opts),
    secrets: [],
    describe: () => undefined,
  };
  const { stream } = model;
  return retryingModel(model.id, target, {
    generate: (req, attempt) => model.generate({ ...req, signal: attempt.signal }),
    ...(stream && {
      async *stream(req: ModelRequest, attempt: Attempt) {
        for await (const part of stream.call(model, { ...req, signal: attempt.signal })) {
          attempt.received(partChars(part));
          yield part;
        }
      },
    }),
  }) as ChatModel & Pick<M, "stream">;
}

/** What a stream part adds towards maxResponseChars: text as it comes, tool-call arguments with the response. */
function partChars(part: ModelStreamPart): number {
  if (part.type === "text-delta") return part.text.length;
  if (part.type === "response") return (part.response.message.toolCalls ?? []).reduce((sum, call) => sum + call.arguments.length, 0);
  return 0;
}

export async function callWithRetry<T>(
  target: RetryTarget,
  signal: AbortSignal | undefined,
  run: (attempt: Attempt) => Promise<T>,
): Promise<T> {
  for (let tries = 1; ; tries++) {
    signal?.throwIfAborted();
    const attempt = new TimedAttempt(target.settings, signal);
    let failure: Failure;
    try {
      return await run(attempt);
    } catch (error) {
      failure = explain(error, attempt, target, signal);
    } finally {
      attempt.dispose();
    }
    await waitBeforeRetry(target, failure, tries, signal);
  }
}

/**
 * Retries a stream only while no text has reached the consumer: once text has been handed on,
 * trying again would repeat it, so a later failure is final. The start of a tool call is only a
 * notice (the call counts once the response holds it), so a stream that broke after one is retried.
 */
export async function* streamWithRetry(
  target: RetryTarget,
  signal: AbortSignal | undefined,
  open: (attempt: Attempt) => AsyncIterable<ModelStreamPart>,
): AsyncGenerator<ModelStreamPart, void, undefined> {
  for (let tries = 1; ; tries++) {
    signal?.throwIfAborted();
    const attempt = new TimedAttempt(target.settings, signal);
    let started = false;
    let failure: Failure;
    try {
      for await (const part of open(attempt)) {
        if (part.type !== "tool-call-start") started = true;
        // Time the consumer spends on a part is not the provider's silence.
        attempt.pause();
        yield part;
        attempt.alive();
      }
      return;
    } catch (error) {
      failure = explain(error, attempt, target, signal);
    } finally {
      attempt.dispose();
    }
    if (started && failure.retryable) throw modelError(target, failure, tries, "the stream broke after output had started, so it was not retried");
    await waitBeforeRetry(target, failure, tries, signal);
  }
}

/** The failure for an HTTP error status; Retry-After and retry-after-ms say how long to wait. */
export function httpFailure(status: number, headers: HeaderSource, message: string): Failure {
  const kind: ModelErrorKind =
    status === 429 ? "rate-limit" : status === 408 ? "timeout" : status >= 500 ? "server" : "request";
  const wait = retryAfterMs(headers);
  // SDK messages often start with the status, which our message names already.
  const detail = message.replace(new RegExp(`^${status}\\s+`), "");
  return { kind, retryable: kind !== "request", status, ...(wait !== undefined ? { retryAfterMs: wait } : {}), detail };
}

export type HeaderSource = Headers | Record<string, string | undefined> | null | undefined;

/** How long the server asked us to wait, from retry-after-ms or Retry-After (seconds or an HTTP date). */
export function retryAfterMs(headers: HeaderSource, now = Date.now()): number | undefined {
  const ms = Number(readHeader(headers, "retry-after-ms")?.trim() || Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = readHeader(headers, "retry-after")?.trim();
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function readHeader(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof headers.get === "function") return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  return typeof entry?.[1] === "string" ? entry[1] : undefined;
}

/** The wait before retry number `retry` (1 for the first): the server's word, else exponential backoff with jitter. */
export function retryDelayMs(failure: Failure, retry: number, settings: RetrySettings): number {
  const backoff = settings.retryBaseDelayMs * 2 ** (retry - 1) * (0.5 + Math.random() / 2);
  return Math.min(settings.retryMaxDelayMs, Math.max(0, failure.retryAfterMs ?? backoff));
}

function explain(error: unknown, attempt: TimedAttempt, target: RetryTarget, signal: AbortSignal | undefined): Failure {
  if (signal?.aborted) throw signal.reason;
  if (error instanceof ModelError) throw error;
  if (attempt.overLimit) return { kind: "response-limit", retryable: false, detail: attempt.overLimit };
  if (attempt.timedOut) {
    return { kind: "timeout", retryable: true, detail: `no response from the provider within ${attempt.timeoutMs} ms` };
  }
  return target.describe(error) ?? sharedFailure(error);
}

function sharedFailure(error: unknown): Failure {
  if (error instanceof IncompleteStreamError) return { kind: "incomplete-stream", retryable: true, detail: error.message };
  if (isConnectionError(error)) return { kind: "connection", retryable: true, detail: describeChain(error) };
  // Most providers' SDKs, and many a model of a user's own, put the HTTP status on what they throw.
  const { status, headers } = (error ?? {}) as { status?: unknown; headers?: unknown };
  if (typeof status === "number" && status >= 400 && status <= 599) return httpFailure(status, headers as HeaderSource, describeChain(error));
  return { kind: "unknown", retryable: false, detail: describeChain(error) };
}

const CONNECTION_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Node's fetch (undici) reports a refused or dropped connection through these codes and messages. */
export function isConnectionError(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    // A body cut short reads as "terminated"; a request that never got through as "fetch failed".
    if (e instanceof TypeError && (e.message === "terminated" || e.message === "fetch failed")) return true;
  }
  return false;
}

/** "terminated: other side closed": an error's message followed by those of its causes. */
export function describeChain(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    const message = e instanceof Error ? e.message : String(e);
    if (message && !parts.includes(message)) parts.push(message);
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(": ") || "unknown error";
}

async function waitBeforeRetry(
  target: RetryTarget,
  failure: Failure,
  tries: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (!failure.retryable) throw modelError(target, failure, tries, "not retried");
  if (tries > target.settings.maxRetries) throw modelError(target, failure, tries);
  await sleep(retryDelayMs(failure, tries, target.settings), signal);
}

function modelError(target: RetryTarget, failure: Failure, attempts: number, note?: string): ModelError {
  const cause = failure.status !== undefined ? `HTTP ${failure.status}` : failure.kind;
  const message =
    `${target.provider} model "${target.model}" failed after ${attempts} attempt${attempts === 1 ? "" : "s"} ` +
    `(${cause}${note ? `; ${note}` : ""}): ${failure.detail}`;
  return new ModelError(redactSecrets(message, target.secrets), {
    provider: target.provider,
    model: target.model,
    kind: failure.kind,
    status: failure.status,
    attempts,
    retryable: failure.retryable,
  });
}

/** What a whole response counts towards maxResponseChars: its text and its tool calls' arguments. */
export function responseChars(response: ModelResponse): number {
  return response.message.content.length + (response.message.toolCalls ?? []).reduce((sum, call) => sum + call.arguments.length, 0);
}

/** Thrown from `Attempt.received` once the response holds more than maxResponseChars. */
class ResponseLimitError extends Error {}

class TimedAttempt implements Attempt {
  readonly #controller = new AbortController();
  readonly signal = this.#controller.signal;
  readonly timeoutMs: number;
  timedOut = false;
  /** Why the response was cut off, when it went past maxResponseMs or maxResponseChars. */
  overLimit: string | undefined;
  readonly #maxChars: number;
  #chars = 0;
  readonly #outer: AbortSignal | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #deadline: ReturnType<typeof setTimeout>;

  constructor(settings: RetrySettings, outer: AbortSignal | undefined) {
    this.timeoutMs = settings.timeoutMs;
    this.#maxChars = settings.maxResponseChars;
    this.#outer = outer;
    outer?.addEventListener("abort", this.#onOuterAbort, { once: true });
    this.#deadline = setTimeout(
      () => this.#cutOff(`the response was still coming after ${settings.maxResponseMs} ms, the most one response may take (maxResponseMs)`),
      settings.maxResponseMs,
    );
    this.alive();
  }

  alive(): void {
    this.pause();
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#controller.abort(new Error(`no response within ${this.timeoutMs} ms`));
    }, this.timeoutMs);
  }

  received(chars: number): void {
    this.alive();
    this.#chars += chars;
    if (this.#chars <= this.#maxChars) return;
    this.#cutOff(`the response held more than ${this.#maxChars} characters of text and tool-call arguments, the most one response may hold (maxResponseChars)`);
    throw new ResponseLimitError(this.overLimit);
  }

  pause(): void {
    clearTimeout(this.#timer);
  }

  /** Ends the try for good, so nothing it started keeps running. */
  dispose(): void {
    this.pause();
    clearTimeout(this.#deadline);
    this.#outer?.removeEventListener("abort", this.#onOuterAbort);
    this.#controller.abort();
  }

  #cutOff(why: string): void {
    this.overLimit ??= why;
    this.#controller.abort(new ResponseLimitError(why));
  }

  readonly #onOuterAbort = () => this.#controller.abort(this.#outer?.reason);
}
