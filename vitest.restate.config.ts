import { defineConfig } from "vitest/config";

/** `npm run test:restate`: Stepwise runs on a restate-server started from node_modules by each suite (see src/integrations/restate/test-support), `stepwise restate serve` from dist/. */
export default defineConfig({
  test: {
    include: ["src/**/*.restate.test.ts", "test/**/*.restate.test.ts"],
    // One server and its service processes at a time: the machine is shared.
    fileParallelism: false,
    globalSetup: ["test/temp-folder.ts"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
