import { describe, expect, it } from "vitest";
import { parseCallArguments } from "./call-arguments.js";

describe("parseCallArguments", () => {
  it("reads keyword and positional arguments with JSON and Python literals", () => {
    expect(parseCallArguments(`query="a, (b)", limit=3, exact=True, tags=['x', $1], note=None`, [])).toEqual({
      args: { query: "a, (b)", limit: 3, exact: true, tags: ["x", "$1"], note: null },
    });
    expect(parseCallArguments(`"2 * $1", \${2}`, ["expression", "context"])).toEqual({ args: { expression: "2 * $1", context: "${2}" } });
    expect(parseCallArguments(`'it\\'s'`, ["text"])).toEqual({ args: { text: "it's" } });
  });

  it("explains arguments it cannot read", () => {
    expect(parseCallArguments(`"a", "b"`, ["only"])).toEqual({ error: `argument 2 ("b") has no name, and the tool takes only 1.` });
    expect(parseCallArguments("q=some words", [])).toEqual({ error: 'argument "q" is not a literal value: q=some words' });
  });
});
