import { describe, expect, it } from "vitest";

// The built package is what users import: `npm test` builds first (pretest), so this checks dist/.
// The path is a variable so type-checking does not need a build; the types come from the sources.
const distEntry = new URL("../dist/index.js", import.meta.url).href;
const root = (await import(distEntry)) as typeof import("../src/index.js");

describe("package root (dist/index.js)", () => {
  it("exports the public contract's runtime names", () => {
    for (const name of ["Agent", "defineTool", "scriptedModel", "ToolError"]) {
      expect(root, name).toHaveProperty(name);
    }
  });

  it("runs an agent from the built code", async () => {
    const agent = new root.Agent({ model: root.scriptedModel(["hello from dist"]) });
    expect((await agent.run("hi")).text).toBe("hello from dist");
  });
});
