import pg from "pg";
import { afterEach, beforeEach, expect, it } from "vitest";
import { stampEvent, type AgentEvent } from "../core/events.js";
import { PostgresRunStore } from "./postgres-run-store.js";
import { RunLeaseLostError, type RunLease } from "./run-store.js";
import { freshSchema } from "./test-support/fresh-schema.js";

// A store's writes for many runs at once (a worker driving dozens) share statements: these tests count
// the statements the store sends through its pool, and check that each run is still written as if alone.

let schema: Awaited<ReturnType<typeof freshSchema>>;
let pool: pg.Pool;
let store: PostgresRunStore;
/** The store's statements, by their first words. */
let sent: string[];

beforeEach(async () => {
  schema = await freshSchema();
  pool = new pg.Pool({ connectionString: schema.url });
  sent = [];
  const counting = {
    query: (config: string | { text: string }, values?: unknown[]) => {
      sent.push((typeof config === "string" ? config : config.text).trim().replace(/\s+/g, " ").slice(0, 40));
      return pool.query(config as string, values);
    },
    connect: () => pool.connect(),
    on: (event: "error", listener: (error: Error) => void) => pool.on(event, listener),
    end: () => pool.end(),
  };
  store = new PostgresRunStore({ pool: counting });
});

afterEach(async () => {
  await store.close();
  await pool.end();
  await schema.drop();
});

const event = (text: string): AgentEvent => ({ ...stampEvent({ type: "text-delta", step: 1, text }, "agent"), time: 1 });

async function createRuns(n: number): Promise<RunLease[]> {
  const leases = await Promise.all(Array.from({ length: n }, (_, i) => store.createRun({ id: `run-${i}`, task: "t", strategy: "react", model: "m" }, {}, "driver", 60_000)));
  sent.length = 0;
  return leases;
}

const claims = () => sent.filter((text) => text.startsWith("WITH unleased AS")).length;

const updatesOfRuns = () => sent.filter((text) => text.startsWith("WITH counted AS") || text.startsWith("UPDATE stepwise_runs SET lease_expires")).length;

it("writes the appends of 40 runs made at once in one statement, each run's events numbered on their own, and fails only the run taken over", async () => {
  const leases = await createRuns(40);
  // Another driver takes run-7 over: its old driver's append is fenced out, alone.
  await pool.query("UPDATE stepwise_runs SET lease_token = lease_token + 1, lease_holder = 'other' WHERE id = 'run-7'");
  const results = await Promise.allSettled(
    leases.map((lease, i) => store.appendEvents(lease, [event(`${i} a`), event(`${i} b`)], { state: { step: i } })),
  );
  expect(updatesOfRuns()).toBe(1);
  results.forEach((result, i) => {
    if (i === 7) expect(result).toMatchObject({ status: "rejected", reason: expect.any(RunLeaseLostError) });
    else expect(result).toEqual({ status: "fulfilled", value: 2 });
  });
  expect(await store.events("run-3")).toEqual([
    { seq: 1, event: event("3 a") },
    { seq: 2, event: event("3 b") },
  ]);
  expect(await store.loadCheckpoint("run-39")).toEqual({ step: 39 });
  expect(await store.events("run-7")).toEqual([]);
  expect(await store.loadCheckpoint("run-7")).toBeUndefined();
});

it("keeps each run's appends in order when they come faster than the database answers", async () => {
  const [first, second] = await createRuns(2);
  const appends = [1, 2, 3].flatMap((k) => [store.appendEvents(first!, [event(`first ${k}`)]), store.appendEvents(second!, [event(`second ${k}`)])]);
  expect(await Promise.all(appends)).toEqual([1, 1, 2, 2, 3, 3]);
  expect((await store.events("run-0")).map(({ event }) => (event.type === "text-delta" ? event.text : ""))).toEqual(["first 1", "first 2", "first 3"]);
  expect((await store.events("run-1")).map(({ event }) => (event.type === "text-delta" ? event.text : ""))).toEqual(["second 1", "second 2", "second 3"]);
});

it("fails only the append the database refuses (a NUL character): the others of its batch are written", async () => {
  const leases = await createRuns(5);
  const results = await Promise.allSettled(leases.map((lease, i) => store.appendEvents(lease, [event(i === 2 ? "nul \u0000 here" : `fine ${i}`)])));
  expect(results.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled"]);
  expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/\\u0000|unsupported Unicode/);
  for (const i of [0, 1, 3, 4]) expect(await store.events(`run-${i}`)).toEqual([{ seq: 1, event: event(`fine ${i}`) }]);
  expect(await store.events("run-2")).toEqual([]);
});

it("renews 30 leases in one statement and tells the one taken over", async () => {
  const leases = await createRuns(30);
  await pool.query("UPDATE stepwise_runs SET lease_token = lease_token + 1, lease_holder = 'other' WHERE id = 'run-4'");
  const before = await pool.query<{ id: string; lease_expires: Date }>("SELECT id, lease_expires FROM stepwise_runs");
  const results = await Promise.allSettled(leases.map((lease) => store.renewLease(lease, 600_000)));
  expect(updatesOfRuns()).toBe(1);
  results.forEach((result, i) => expect(result.status).toBe(i === 4 ? "rejected" : "fulfilled"));
  expect((results[4] as PromiseRejectedResult).reason).toBeInstanceOf(RunLeaseLostError);
  const after = await pool.query<{ id: string; lease_expires: Date }>("SELECT id, lease_expires FROM stepwise_runs");
  const expiry = (rows: { id: string; lease_expires: Date }[], id: string) => rows.find((row) => row.id === id)!.lease_expires.getTime();
  expect(expiry(after.rows, "run-0")).toBeGreaterThan(expiry(before.rows, "run-0") + 500_000);
  expect(expiry(after.rows, "run-4")).toBe(expiry(before.rows, "run-4"));
});

it("writes a run named __proto__ like any other", async () => {
  const lease = await store.createRun({ id: "__proto__", task: "t", strategy: "react", model: "m" }, {}, "driver", 60_000);
  expect(await store.appendEvents(lease, [event("x")], { state: { ok: true } })).toBe(1);
  await store.renewLease(lease, 60_000);
  expect(await store.loadCheckpoint("__proto__")).toEqual({ ok: true });
});

it("claims for a worker's free slots made at once in one statement: each gets a run of its own, oldest first, the ones too many none", async () => {
  // Queued one after the other, so that they are oldest first in this order.
  for (let i = 0; i < 5; i++) await store.releaseLease(await store.createRun({ id: `run-${i}`, task: "t", strategy: "react", model: "m" }, {}, "starter", 60_000));
  sent.length = 0;
  const claimed = await Promise.all(Array.from({ length: 8 }, () => store.claimRun("worker", 60_000)));
  expect(claims()).toBe(1);
  const ids = claimed.flatMap((claim) => (claim ? [claim.run.id] : []));
  expect(ids).toEqual(["run-0", "run-1", "run-2", "run-3", "run-4"]);
  expect(claimed.slice(5)).toEqual([undefined, undefined, undefined]);
  for (const claim of claimed.slice(0, 5)) expect(await store.getRun(claim!.run.id)).toMatchObject({ lease: { holder: "worker" } });
  // Claims of another holder, or passing other runs over, are their own statement in the same batch.
  for (const claim of claimed.slice(0, 2)) await store.releaseLease(claim!.lease);
  const [mine, theirs] = await Promise.all([store.claimRun("worker", 60_000, ["run-0"]), store.claimRun("other", 60_000)]);
  expect(mine?.run.id).toBe("run-1");
  expect(theirs?.run.id).toBe("run-0");
});
