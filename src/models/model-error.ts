/** Why a model call failed, in terms a caller can act on. */
export type ModelErrorKind =
  | "rate-limit" // HTTP 429
  | "server" // HTTP 5xx, or an overload reported inside a stream
  | "timeout" // no answer within timeoutMs (or HTTP 408)
  | "connection" // the connection failed or dropped
  | "incomplete-stream" // the stream ended before the model finished
  | "response-limit" // the response went on past maxResponseMs or maxResponseChars (not retried)
  | "request" // any other HTTP error: bad request, authentication, unknown model, ...
  | "unknown";

export interface ModelErrorDetails {
  provider: string;
  model: string;
  kind: ModelErrorKind;
  status: number | undefined;
  attempts: number;
  retryable: boolean;
}

/**
 * A model call that failed for good: retries are spent or the failure is not transient.
 * Its message has the adapter's own keys and anything shaped like a provider key removed (see
 * redact.ts), and it keeps no reference to the SDK error, whose fields could hold a key. A key of an
 * unfamiliar shape that the adapter was not given could still show.
 */
export class ModelError extends Error implements ModelErrorDetails {
  override readonly name = "ModelError";
  readonly provider: string;
  readonly model: string;
  readonly kind: ModelErrorKind;
  /** The HTTP status of the last attempt, when there was one. */
  readonly status: number | undefined;
  readonly attempts: number;
  /** The last failure was transient: trying again later may succeed. */
  readonly retryable: boolean;

  constructor(message: string, details: ModelErrorDetails) {
    super(message);
    this.provider = details.provider;
    this.model = details.model;
    this.kind = details.kind;
    this.status = details.status;
    this.attempts = details.attempts;
    this.retryable = details.retryable;
  }
}
