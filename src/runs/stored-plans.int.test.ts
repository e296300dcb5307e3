import { freshSchema } from "../stores/test-support/fresh-schema.js";
import { openStores } from "./store-set.js";
import { describeStoredPlans } from "./test-support/stored-plans-suite.js";

// A schema of its own per test: the listing covers every scope, so another test's plans must not be there.
describeStoredPlans("postgres", async () => {
  const schema = await freshSchema();
  return { stores: openStores(schema.url), cleanup: () => schema.drop() };
});
