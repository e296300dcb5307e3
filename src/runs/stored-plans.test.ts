import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStores } from "./store-set.js";
import { describeStoredPlans } from "./test-support/stored-plans-suite.js";

describeStoredPlans("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-stored-plans-"));
  return { stores: openStores(join(dir, "stepwise.db")), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
});
