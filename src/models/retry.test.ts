import { describe, expect, it } from "vitest";
import { callWithRetry, isConnectionError, retryAfterMs, retryDelayMs, retrySettings, type RetryTarget } from "./retry.js";

const settings = retrySettings({ retryBaseDelayMs: 100, retryMaxDelayMs: 1_000 });

describe("retryAfterMs", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");

  it("reads seconds, fractions of them, and HTTP dates", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2_000);
    expect(retryAfterMs(new Headers({ "retry-after": "0.25" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:07 GMT" }), now)).toBe(7_000);
    expect(retryAfterMs(new Headers({ "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }), now)).toBe(0);
  });

  it("prefers retry-after-ms, and reads plain header records case-insensitively", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "30", "retry-after": "9" }), now)).toBe(30);
    expect(retryAfterMs({ "Retry-After": "3" }, now)).toBe(3_000);
  });

  it("ignores what it cannot read", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "-4" }), now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after-ms": " ", "retry-after": "2" }), now)).toBe(2_000);
  });
});

describe("retryDelayMs", () => {
  it("doubles from the base delay, with jitter of at most half", () => {
    for (const retry of [1, 2, 3]) {
      const full = 100 * 2 ** (retry - 1);
      const delay = retryDelayMs({ kind: "server", retryable: true, detail: "" }, retry, settings);
      expect(delay).toBeGreaterThanOrEqual(full / 2);
      expect(delay).toBeLessThanOrEqual(full);
    }
  });

  it("follows the server's Retry-After, but never past the cap", () => {
    expect(retryDelayMs({ kind: "rate-limit", retryable: true, retryAfterMs: 700, detail: "" }, 1, settings)).toBe(700);
    expect(retryDelayMs({ kind: "rate-limit", retryable: true, retryAfterMs: 3_600_000, detail: "" }, 1, settings)).toBe(1_000);
    expect(retryDelayMs({ kind: "server", retryable: true, detail: "" }, 30, settings)).toBe(1_000);
  });
});

describe("isConnectionError", () => {
  it("recognises undici's dropped and refused connections, through causes", () => {
    const socketClosed = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    expect(isConnectionError(new TypeError("terminated", { cause: socketClosed }))).toBe(true);
    expect(isConnectionError(new Error("wrapped", { cause: Object.assign(new Error("x"), { code: "ECONNREFUSED" }) }))).toBe(true);
    expect(isConnectionError(new Error("Unexpected token < in JSON"))).toBe(false);
  });
});

describe("callWithRetry", () => {
  const target: RetryTarget = {
    provider: "test",
    model: "m",
    settings: retrySettings({ maxRetries: 5, retryBaseDelayMs: 1 }),
    secrets: [],
    describe: () => ({ kind: "server", retryable: true, detail: "flaky" }),
  };

  it("does not start when the caller has already aborted", async () => {
    let calls = 0;
    const signal = AbortSignal.abort(new Error("stopped"));
    await expect(callWithRetry(target, signal, async () => ++calls)).rejects.toThrow("stopped");
    expect(calls).toBe(0);
  });

  it("passes each try a signal that ends with the try", async () => {
    const signals: AbortSignal[] = [];
    let calls = 0;
    const value = await callWithRetry(target, undefined, async ({ signal }) => {
      signals.push(signal);
      if (++calls < 3) throw new Error("flaky");
      return "ok";
    });
    expect(value).toBe("ok");
    expect(signals).toHaveLength(3);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });
});
