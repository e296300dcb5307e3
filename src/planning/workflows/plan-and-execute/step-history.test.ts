import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../../core/tokens.js";
import { StepHistory } from "./step-history.js";

describe("StepHistory", () => {
  it("renders every step while under budget, without calling the summarizer", async () => {
    const history = new StepHistory(1000, () => Promise.reject(new Error("must not summarize")));
    await history.add({ id: "1", step: "look", result: "found 3" });
    expect(history.render()).toBe("Step 1: look\nResult: found 3");
  });

  it("stays near its budget even when the summarizer ignores the word limit", async () => {
    const history = new StepHistory(200, async () => "very long summary ".repeat(500));
    for (let i = 1; i <= 30; i++) {
      await history.add({ id: String(i), step: `step ${i}`, result: "x".repeat(300) });
      expect(estimateTokens(history.render())).toBeLessThanOrEqual(200 + 10);
    }
    expect(history.summary.endsWith("…")).toBe(true);
  });

  it("hands the previous summary and the folded steps to the summarizer", async () => {
    const calls: string[] = [];
    const history = new StepHistory(60, async (previous, steps) => {
      calls.push(`${previous}|${steps.map((s) => s.id).join(",")}`);
      return `sum${calls.length}`;
    });
    for (let i = 1; i <= 4; i++) await history.add({ id: String(i), step: "s", result: "y".repeat(120) });
    expect(calls[0]).toMatch(/^\|1/);
    expect(calls[1]).toMatch(/^sum1\|/);
  });
});
