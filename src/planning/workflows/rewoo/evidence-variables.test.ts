import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { referencedVariables, substituteEvidence } from "./evidence-variables.js";

describe("evidence variables", () => {
  it("substitutes #E1 and #E10 as distinct whole tokens", () => {
    const evidence = new Map([
      ["#E1", "one"],
      ["#E10", "ten"],
    ]);
    expect(substituteEvidence("#E10 then #E1, not #E1x", evidence)).toBe("ten then one, not onex");
  });

  it("never lets a shorter variable corrupt a longer one, whatever the evidence", () => {
    fc.assert(
      fc.property(fc.array(fc.string().filter((s) => !s.includes("#E")), { minLength: 12, maxLength: 12 }), (values) => {
        const evidence = new Map(values.map((value, i) => [`#E${i + 1}`, value]));
        const template = values.map((_, i) => `#E${i + 1}`).join("|");
        expect(substituteEvidence(template, evidence)).toBe(values.join("|"));
      }),
    );
  });

  it("walks objects and arrays, and leaves unknown variables as written", () => {
    const evidence = new Map([["#E2", "Paris"]]);
    expect(substituteEvidence({ q: "weather in #E2", list: ["#E2", 3], other: "#E9" }, evidence)).toEqual({
      q: "weather in Paris",
      list: ["Paris", 3],
      other: "#E9",
    });
  });

  it("lists the variables a value mentions", () => {
    expect(referencedVariables({ a: "#E1 and #E12", b: ["#E1"] })).toEqual(["#E1", "#E12"]);
  });
});
