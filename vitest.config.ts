import { defineConfig } from "vitest/config";
import { suitesWithoutTheirServices } from "./test/services.js";

export default defineConfig(async () => ({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The reliability and Restate suites run on their own: npm run test:reliability, npm run test:restate.
    // Suites whose service (PostgreSQL, Chromium) is not there are skipped with a notice (test/services.ts).
    exclude: ["**/node_modules/**", "**/*.reliability.test.ts", "**/*.restate.test.ts", ...(await suitesWithoutTheirServices())],
    globalSetup: ["test/temp-folder.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for something to happen; its default of 1 s is a clock a busy machine loses to.
    expect: { poll: { timeout: 20_000 } },
  },
}));
