import { defineConfig } from "vitest/config";

/** `npm run test:reliability`: whole-product suites under faults and load; each prints its figures at the end. */
export default defineConfig({
  test: {
    include: ["test/reliability/**/*.reliability.test.ts"],
    globalSetup: ["test/temp-folder.ts", "test/reliability/figures-setup.ts"],
    testTimeout: 300_000,
    hookTimeout: 60_000,
  },
});
