import { describe, expect, it } from "vitest";
import { estimateCostUsd, priceOf } from "./model-prices.js";

describe("estimateCostUsd", () => {
  it("prices uncached input, cached reads, cache writes and output each at their own rate", () => {
    const cost = estimateCostUsd("anthropic:claude-sonnet-4-5", {
      inputTokens: 1_000_000,
      cacheReadInputTokens: 600_000,
      cacheWriteInputTokens: 100_000,
      outputTokens: 10_000,
    });
    // 300k uncached × $3 + 600k read × $0.30 + 100k written × $3.75 + 10k out × $15, per million
    expect(cost).toBeCloseTo(0.9 + 0.18 + 0.375 + 0.15, 10);
  });

  it("charges cached reads at the input price when the model has no cached price", () => {
    const prices = { local: { input: 1, output: 2 } };
    expect(estimateCostUsd("ollama:local", { inputTokens: 1_000_000, cacheReadInputTokens: 500_000, outputTokens: 0 }, prices)).toBe(1);
  });

  it("is undefined for a model whose price is unknown, never zero", () => {
    expect(estimateCostUsd("scripted:demo", { inputTokens: 10, outputTokens: 10 })).toBeUndefined();
  });
});

describe("priceOf", () => {
  it("finds a dated snapshot's family and prefers the longest matching name", () => {
    expect(priceOf("openai:gpt-4o-mini-2024-07-18")).toEqual(priceOf("gpt-4o-mini"));
    expect(priceOf("openai:gpt-4o-2024-08-06")).toEqual(priceOf("gpt-4o"));
    expect(priceOf("openai:gpt-4o-mini")).not.toEqual(priceOf("gpt-4o"));
  });

  it("does not match a name that only shares leading letters with a known one", () => {
    expect(priceOf("openai:gpt-4ox")).toBeUndefined();
  });
});
