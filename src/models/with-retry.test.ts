import { describe, expect, it } from "vitest";
import { Agent, ModelError, withRetry, type ChatModel, type ModelRequest, type ModelResponse, type ModelStreamPart } from "../index.js";

const FAST = { retryBaseDelayMs: 1, retryMaxDelayMs: 5 };
const ask: ModelRequest = { messages: [{ role: "user", content: "hi" }], tools: [] };
const answer = (content: string): ModelResponse => ({ message: { role: "assistant", content } });

/** An error as providers' SDKs throw it: a message and the HTTP status. */
function httpError(status: number, message = `${status} status code`): Error {
  return Object.assign(new Error(message), { status });
}

/** A model of a user's own that fails with `failures` in turn and then answers; it records each call's signal. */
function flakyModel(failures: unknown[], id = "acme:big"): ChatModel & { signals: (AbortSignal | undefined)[] } {
  const signals: (AbortSignal | undefined)[] = [];
  return {
    id,
    signals,
    async generate(req) {
      signals.push(req.signal);
      const failure = failures.shift();
      if (failure !== undefined) throw failure;
      return answer("done");
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

async function collect(parts: AsyncIterable<ModelStreamPart>): Promise<ModelStreamPart[]> {
  const all: ModelStreamPart[] = [];
  for await (const part of parts) all.push(part);
  return all;
}

describe("withRetry around a model of a user's own", () => {
  it("tries again after transient failures, each try with a signal of its own that ends with it", async () => {
    const model = flakyModel([httpError(503), Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNRESET" } })]);
    const retrying = withRetry(model, FAST);
    expect(retrying.id).toBe("acme:big");
    expect(await retrying.generate(ask)).toEqual(answer("done"));
    expect(model.signals).toHaveLength(3);
    expect(new Set(model.signals).size).toBe(3);
    expect(model.signals.every((signal) => signal?.aborted)).toBe(true);
  });

  it("gives up after maxRetries with a ModelError naming the provider and model from the id, the status and the tries", async () => {
    const model = flakyModel([httpError(429), httpError(429), httpError(429)]);
    const error = await failure(withRetry(model, { ...FAST, maxRetries: 1 }).generate(ask));
    expect(error.message).toBe('acme model "big" failed after 2 attempts (HTTP 429): status code');
    expect(error).toMatchObject({ provider: "acme", model: "big", kind: "rate-limit", status: 429, attempts: 2, retryable: true });
    expect(model.signals).toHaveLength(2);
  });

  it("does not retry what a retry cannot mend: a request the provider refused, an error that says nothing of a status", async () => {
    const refused = flakyModel([httpError(400, "400 bad tool schema")], "mine");
    const error = await failure(withRetry(refused, FAST).generate(ask));
    expect(error.message).toBe('custom model "mine" failed after 1 attempt (HTTP 400; not retried): bad tool schema');
    expect(refused.signals).toHaveLength(1);

    const broken = flakyModel([new RangeError("my bug")]);
    expect(await failure(withRetry(broken, FAST).generate(ask))).toMatchObject({ kind: "unknown", attempts: 1, retryable: false });
    expect(broken.signals).toHaveLength(1);
  });

  it("passes a ModelError on as it is, so a model that retries already is not retried twice over", async () => {
    const inner = flakyModel([httpError(503), httpError(503)]);
    const twice = withRetry(withRetry(inner, { ...FAST, maxRetries: 1 }), { ...FAST, maxRetries: 3 });
    const error = await failure(twice.generate(ask));
    expect(error.message).toBe('acme model "big" failed after 2 attempts (HTTP 503): status code');
    expect(inner.signals).toHaveLength(2);
  });

  it("keeps keys out of its error messages", async () => {
    const model = flakyModel([httpError(401, "401 Incorrect API key provided: sk-live0123456789abcdefghij")]);
    const error = await failure(withRetry(model, FAST).generate(ask));
    expect(error.message).not.toContain("sk-live0123456789abcdefghij");
    expect(error.message).toContain("[redacted]");
  });

  it("times out a try the model never answers, and tries again", async () => {
    const signals: AbortSignal[] = [];
    const silent: ChatModel = {
      id: "acme:silent",
      generate: (req) =>
        new Promise((_, reject) => {
          signals.push(req.signal as AbortSignal);
          req.signal?.addEventListener("abort", () => reject(req.signal?.reason));
        }),
    };
    const error = await failure(withRetry(silent, { ...FAST, timeoutMs: 30, maxRetries: 1 }).generate(ask));
    expect(error).toMatchObject({ kind: "timeout", attempts: 2 });
    expect(signals).toHaveLength(2);
  });

  it("stops when the caller aborts, with the caller's reason, and starts no further try", async () => {
    const controller = new AbortController();
    const model: ChatModel & { calls: number } = {
      id: "acme:big",
      calls: 0,
      async generate() {
        this.calls++;
        controller.abort(new Error("user stopped"));
        throw httpError(503);
      },
    };
    await expect(withRetry(model, FAST).generate({ ...ask, signal: controller.signal })).rejects.toThrow("user stopped");
    expect(model.calls).toBe(1);
  });

  it("streams when the model streams: retried while no text has been passed on, final once some has", async () => {
    const streams: (() => AsyncGenerator<ModelStreamPart>)[] = [
      async function* () {
        yield { type: "tool-call-start", id: "c1", name: "look" };
        throw httpError(502);
      },
      async function* () {
        yield { type: "text-delta", text: "Hel" };
        throw httpError(502);
      },
    ];
    const model = { id: "acme:big", generate: async () => answer("unused"), stream: () => (streams.shift() as () => AsyncGenerator<ModelStreamPart>)() } satisfies ChatModel;
    const parts: ModelStreamPart[] = [];
    const error = await failure(
      (async () => {
        for await (const part of withRetry(model, FAST).stream(ask)) parts.push(part);
      })(),
    );
    expect(parts).toEqual([{ type: "tool-call-start", id: "c1", name: "look" }, { type: "text-delta", text: "Hel" }]);
    expect(error.message).toContain("the stream broke after output had started, so it was not retried");
    expect(streams).toHaveLength(0);
    expect(withRetry(flakyModel([]), FAST).stream).toBeUndefined();
  });

  it("cuts off a stream past maxResponseChars, and does not retry it", async () => {
    let opened = 0;
    const endless = {
      id: "acme:endless",
      generate: async () => answer("unused"),
      async *stream(): AsyncGenerator<ModelStreamPart> {
        opened++;
        for (;;) yield { type: "text-delta", text: "spam " };
      },
    } satisfies ChatModel;
    const error = await failure(collect(withRetry(endless, { ...FAST, maxResponseChars: 1_000 }).stream(ask)));
    expect(error.kind).toBe("response-limit");
    expect(opened).toBe(1);
  });

  it("is a ChatModel an agent takes: a run rides out a provider's hiccup", async () => {
    const model = flakyModel([httpError(500)]);
    const agent = new Agent({ model: withRetry(model, FAST) });
    expect(await agent.run("hi")).toMatchObject({ text: "done", stopReason: "final" });
    expect(model.signals).toHaveLength(2);
  });
});
