import { join } from "node:path";
import { describe, it } from "vitest";
import { freshHome } from "./cli-harness.js";
import { poisonStore, workThroughPoison } from "./poisoned-runs.js";

describe("stepwise worker on a SQLite store full of runs it cannot resume", () => {
  it("drives the good killed run behind 60 that cannot be resumed here, and marks those failed with their reasons after a counted number of tries", async () => {
    const home = freshHome();
    const store = join(home, "stepwise.db");
    const setup = await poisonStore(home, store);
    await workThroughPoison(home, [], store, setup);
  }, 120_000);
});
