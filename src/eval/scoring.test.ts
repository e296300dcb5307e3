import { describe, expect, it } from "vitest";
import { wilsonInterval } from "./scoring.js";

describe("wilsonInterval", () => {
  it("gives the published 95% Wilson intervals", () => {
    const [low0, high0] = wilsonInterval(0, 10);
    expect([low0, Number(high0.toFixed(4))]).toEqual([0, 0.2775]);
    expect(wilsonInterval(5, 10).map((x) => Number(x.toFixed(4)))).toEqual([0.2366, 0.7634]);
    expect(wilsonInterval(10, 10).map((x) => Number(x.toFixed(4)))).toEqual([0.7225, 1]);
  });

  it("claims nothing without trials", () => {
    expect(wilsonInterval(0, 0)).toEqual([0, 1]);
  });
});
