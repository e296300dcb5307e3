import { describe, expect, it } from "vitest";
import { callArguments } from "./call-arguments.js";

const call = (args: string) => ({ id: "c1", name: "write_file", arguments: args });

describe("callArguments", () => {
  it("reads a JSON object's fields", () => {
    expect(callArguments(call('{"path":"a.md","content":"x"}'))).toEqual({ path: "a.md", content: "x" });
  });

  it("is empty for what the model sent that is not a JSON object, so the viewer never reads a field of null", () => {
    for (const sent of ["null", "[1,2]", "42", '"text"', '{"path": "a.md"', ""]) expect(callArguments(call(sent))).toEqual({});
  });
});
