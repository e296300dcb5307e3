import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // The reliability suites run on their own: npm run test:reliability.
    exclude: ["**/node_modules/**", "**/*.reliability.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
