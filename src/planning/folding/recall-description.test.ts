import { describe, expect, it } from "vitest";
import { RECALL_DESCRIPTION } from "./recall-description.js";

describe("recall description", () => {
  it("tells the model what folded work looks like, what to pass and to recall sparingly", () => {
    expect(RECALL_DESCRIPTION).toContain("<folded-work");
    expect(RECALL_DESCRIPTION).toContain("exactly");
    expect(RECALL_DESCRIPTION).toMatch(/`unit`/);
    expect(RECALL_DESCRIPTION).toMatch(/subtask:2/);
    expect(RECALL_DESCRIPTION).toMatch(/id/);
    expect(RECALL_DESCRIPTION).toMatch(/only read back what you need/i);
  });
});
