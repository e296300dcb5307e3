import { describe, expect, it } from "vitest";
import { boundedQuote, boundedText } from "./bounded-quote.js";

describe("boundedQuote and boundedText", () => {
  it("repeat short input whole, quoted or not", () => {
    expect(boundedQuote('a "b"')).toBe('"a \\"b\\""');
    expect(boundedText("abc", 3)).toBe("abc");
  });

  it("cut long input to its start and say how many characters were left out", () => {
    const text = "x".repeat(8_000_000);
    expect(boundedQuote(text)).toBe(`"${"x".repeat(200)}"… (7999800 more characters left out)`);
    expect(boundedText(text, 5)).toBe("xxxxx… (7999995 more characters left out)");
  });
});
