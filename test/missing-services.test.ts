import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A contributor without PostgreSQL or Chromium runs `npm test` and gets the other suites, with one line
// saying what to start; CI (STEPWISE_REQUIRE_SERVICES=1, set by .ci/run) fails instead.
const REPO = fileURLToPath(new URL("..", import.meta.url));
const VITEST = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
// One suite of each kind that needs a service, and one that needs none.
const SUITES = ["src/stores/postgres-plan-store.int.test.ts", "src/web/viewer.browser.test.ts", "src/core/bounded-quote.test.ts"];
const NOWHERE = { STEPWISE_TEST_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", STEPWISE_TEST_CHROMIUM: "/nonexistent/chromium" };

function vitest(env: Record<string, string>) {
  const { STEPWISE_REQUIRE_SERVICES: _, ...inherited } = process.env;
  return spawnSync(process.execPath, [VITEST, "run", "--reporter=json", ...SUITES], { cwd: REPO, encoding: "utf8", env: { ...inherited, ...env } });
}

describe("npm test without the services some suites need", () => {
  it("skips those suites with one line naming what to start, and runs the rest", () => {
    const result = vitest(NOWHERE);
    expect(result.status, result.stderr).toBe(0);
    const notices = result.stderr.split("\n").filter((line) => line.startsWith("npm test: skipping suites"));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/^npm test: skipping suites: \*\*\/\*\.int\.test\.ts need PostgreSQL \(.+\); \*\*\/\*\.browser\.test\.ts need Chromium \(no \/nonexistent\/chromium\)\. To run them, start PostgreSQL at postgres:\/\/nobody@127\.0\.0\.1:1\/none \(or set STEPWISE_TEST_DATABASE_URL\), and install Chromium at \/nonexistent\/chromium \(or set STEPWISE_TEST_CHROMIUM\)\.$/);
    const report = JSON.parse(result.stdout) as { testResults: { name: string }[] };
    expect(report.testResults.map((suite) => suite.name.slice(REPO.length))).toEqual(["src/core/bounded-quote.test.ts"]);
  });

  it("fails, saying what is missing, when STEPWISE_REQUIRE_SERVICES=1", () => {
    const result = vitest({ ...NOWHERE, STEPWISE_REQUIRE_SERVICES: "1" });
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain("need PostgreSQL");
    expect(result.stderr).toContain("STEPWISE_REQUIRE_SERVICES=1 makes a missing service a failure");
    expect(result.stdout).not.toContain("bounded-quote");
  });
});
