import { existsSync } from "node:fs";
import pg from "pg";
import { TEST_DATABASE_URL } from "../src/stores/test-support/shared-board-workload.js";

// The services some suites need, by the name their files end in. `npm test` skips a missing one's suites
// with one line saying what to start; with STEPWISE_REQUIRE_SERVICES=1 (`.ci/run` sets it) it fails instead.
export const REQUIRE_SERVICES = "STEPWISE_REQUIRE_SERVICES";
export const CHROMIUM = process.env["STEPWISE_TEST_CHROMIUM"] ?? "/usr/bin/chromium";

type Service = { suites: string; missing(): Promise<string | undefined>; start: string };

const SERVICES: Service[] = [
  {
    suites: "**/*.int.test.ts",
    start: `start PostgreSQL at ${TEST_DATABASE_URL} (or set STEPWISE_TEST_DATABASE_URL)`,
    async missing() {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 5_000 });
      try {
        await client.connect();
        await client.query("SELECT 1");
        return undefined;
      } catch (error) {
        return `PostgreSQL (${error instanceof Error ? error.message || error.constructor.name : String(error)})`;
      } finally {
        await client.end().catch(() => {});
      }
    },
  },
  {
    suites: "**/*.browser.test.ts",
    start: `install Chromium at ${CHROMIUM} (or set STEPWISE_TEST_CHROMIUM)`,
    missing: async () => (existsSync(CHROMIUM) ? undefined : `Chromium (no ${CHROMIUM})`),
  },
];

/**
 * The suites to leave out because a service they need is not there, after saying so on one line;
 * throws that line instead when STEPWISE_REQUIRE_SERVICES=1.
 */
export async function suitesWithoutTheirServices(): Promise<string[]> {
  const absent = (await Promise.all(SERVICES.map(async (service) => ({ service, why: await service.missing() })))).filter((s) => s.why !== undefined);
  if (absent.length === 0) return [];
  const what = absent.map(({ service, why }) => `${service.suites} need ${why}`).join("; ");
  const start = absent.map(({ service }) => service.start).join(", and ");
  if (process.env[REQUIRE_SERVICES] === "1") throw new Error(`${what}: ${start}; ${REQUIRE_SERVICES}=1 makes a missing service a failure`);
  process.stderr.write(`npm test: skipping suites: ${what}. To run them, ${start}.\n`);
  return absent.map(({ service }) => service.suites);
}
