import { afterEach, describe, it } from "vitest";
import { freshSchema } from "../../src/stores/test-support/fresh-schema.js";
import { freshHome } from "./cli-harness.js";
import { poisonStore, workThroughPoison } from "./poisoned-runs.js";

const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

// On PostgreSQL each failed resume's release is a NOTIFY that wakes the worker at once: where the spin was seen.
describe("stepwise worker on a PostgreSQL store full of runs it cannot resume", () => {
  it("drives the good killed run behind 60 that cannot be resumed here, and marks those failed with their reasons after a counted number of tries", async () => {
    const schema = await freshSchema();
    drops.push(schema.drop);
    const home = freshHome();
    const setup = await poisonStore(home, schema.url);
    await workThroughPoison(home, ["--store", schema.url], schema.url, setup);
  }, 120_000);
});
